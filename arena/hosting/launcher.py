"""Run in a fresh interpreter between the runner and bwrap: join the bot's cgroup, set the
rlimits, then become bwrap (exec, same pid).

The runner starts this script (`python3 -I -S launcher.py ...`) instead of running Python code in
a forked copy of itself (`preexec_fn`): a forked copy of a process with gRPC's threads was seen
to die by signal 11 before exec (in tests that run a referee in the same process), and without
`preexec_fn` the child is started with vfork. It imports only os, resource and sys.

    launcher.py CPU_S OPEN_FILES FILE_BYTES ADDRESS_SPACE_BYTES N PROCS_FILE... -- ARGV...

ADDRESS_SPACE_BYTES 0 sets no address-space limit (the cgroup limits memory instead)."""

from __future__ import annotations

import os
import resource
import sys


def launch(words: list[str]) -> None:
    """Apply the limits and cgroups `words` name, then exec the argv after `--`."""
    cpu, files, file_bytes, address_space, count = (int(word) for word in words[:5])
    procs_files = words[5 : 5 + count]
    argv = words[5 + count + 1 :]
    for path in procs_files:
        with open(path, "w") as handle:
            handle.write("0")  # "0": the writing process itself
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if address_space:
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    os.execv(argv[0], argv)


if __name__ == "__main__":
    launch(sys.argv[1:])
