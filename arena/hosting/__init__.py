"""Hosted bots: a bot's program run by the arena in a bubblewrap sandbox.

limits.py    Limits (memory, processes, CPU, files, /tmp, output) and the ExitCause enum
cgroups.py   a per-bot cgroup (v2, or v1 memory/pids/cpu as on our machines) and what it saw
runtime.py   which host paths a sandbox sees read-only (the Python and Node runtimes)
sandbox.py   the bwrap command line for one bot; SandboxUnavailable when bwrap is missing
output.py    a bot's stdout/stderr kept in a bounded buffer
forward.py   the bot's one way out: a Unix socket forwarded to a referee's TCP address
launcher.py  the script between the runner and bwrap: join the cgroup, set rlimits, exec
process.py   one sandboxed bot process: start, watch, classify its end, stop
transcripts.py  a bot's output lines saved per ended match, for the owner's private replay
"""
