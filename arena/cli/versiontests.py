"""`arena test start|show|stop|list`: version tests, a candidate against a baseline (issue 29)."""

from __future__ import annotations

import argparse
import asyncio
import math
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import engines
from arena.cli.errors import CliError, positive
from arena.cli.options import add_per_decision, per_decision_clock, split_names
from arena.cli.target import (
    ADMIN_TOKEN_HELP,
    account_metadata,
    add_target,
    admin_metadata,
    open_channel,
)
from arena.v1 import arena_pb2, arena_pb2_grpc
from arena.versiontest.entrants import parse_entrant

Reply = TypeVar("Reply")
FOLLOW_SECONDS = 2.0
BAR = 41
"""Characters of the LLR bar between its bounds."""
STATUS_WORDS = {
    arena_pb2.VERSION_TEST_STATUS_RUNNING: "running",
    arena_pb2.VERSION_TEST_STATUS_H0: "H0 accepted (not stronger by elo1)",
    arena_pb2.VERSION_TEST_STATUS_H1: "H1 accepted (stronger)",
    arena_pb2.VERSION_TEST_STATUS_CAPPED: "stopped at its match cap",
    arena_pb2.VERSION_TEST_STATUS_STOPPED: "stopped by an operator",
}
SET_WORDS = {
    arena_pb2.VERSION_TEST_SET_STATUS_PLAYING: "playing",
    arena_pb2.VERSION_TEST_SET_STATUS_COUNTED: "counted",
    arena_pb2.VERSION_TEST_SET_STATUS_VOID: "void",
}


LIST_STATUSES = {
    "running": arena_pb2.VERSION_TEST_STATUS_RUNNING,
    "h0": arena_pb2.VERSION_TEST_STATUS_H0,
    "h1": arena_pb2.VERSION_TEST_STATUS_H1,
    "capped": arena_pb2.VERSION_TEST_STATUS_CAPPED,
    "stopped": arena_pb2.VERSION_TEST_STATUS_STOPPED,
}
KEY_HELP = (
    "the API key of the owner of both sides (default: ARENA_API_KEY, the key `arena login` "
    "stored, else the admin token)"
)


async def _call(
    args: argparse.Namespace,
    use: Callable[[arena_pb2_grpc.ArenaServiceAsyncStub], Awaitable[Reply]],
) -> Reply:
    async with open_channel(args) as channel:
        return await use(arena_pb2_grpc.ArenaServiceStub(channel))


def _metadata(args: argparse.Namespace) -> tuple[tuple[str, str], ...]:
    """An owner's key (--key, ARENA_API_KEY, the stored login), or --admin-token when given."""
    if args.admin_token:
        return admin_metadata(args)
    found = account_metadata(args)
    assert found is not None  # required: a missing key is a CliError
    return found


def _side(flag: str, text: str) -> str:
    try:
        return parse_entrant(text.strip()).name
    except ValueError as exc:
        raise CliError(
            f"{flag}: {exc}", "give a registered bot's name, or NAME@LABEL for one of its versions"
        ) from None


def start(args: argparse.Namespace) -> int:
    """Start a test and print it."""
    request = arena_pb2.StartVersionTestRequest(
        game=args.game,
        candidate=_side("--candidate", args.candidate),
        baseline=_side("--baseline", args.baseline),
        elo0=args.elo0,
        elo1=args.elo1,
        alpha=args.alpha,
        beta=args.beta,
        fillers=[_side("--fillers", f) for f in split_names(args.fillers)],
        seats=args.seats,
        max_matches=args.max_matches or 0,
        clock=per_decision_clock(args),
    )
    if not args.elo0 < args.elo1:
        raise CliError(f"--elo1 ({args.elo1:g}) must exceed --elo0 ({args.elo0:g})")
    made = asyncio.run(
        _call(args, lambda api: api.StartVersionTest(request, metadata=_metadata(args)))
    )
    print(
        f"version test {made.test_id} started; "
        f"follow it with `arena test show {made.test_id} --follow`"
    )
    versions = [name for name in (made.candidate, made.baseline) if "@" in name]
    for name in versions:
        print(
            f"{name} plays as a bot of its own: a hosted version runs by itself; for your own "
            f"program, get its token with `arena bot rotate {name}` and connect it with that"
        )
    return 0


def show(args: argparse.Namespace) -> int:
    """Print a test; with --follow, print each change until it stops."""
    request = arena_pb2.GetVersionTestRequest(test_id=args.test_id)

    async def follow() -> None:
        async with open_channel(args) as channel:
            api = arena_pb2_grpc.ArenaServiceStub(channel)
            test = await api.GetVersionTest(request)
            for text in lines(test):
                print(text)
            seen = len(test.sets), test.status
            while args.follow and test.status == arena_pb2.VERSION_TEST_STATUS_RUNNING:
                await asyncio.sleep(FOLLOW_SECONDS)
                test = await api.GetVersionTest(request)
                counted = sum(
                    s.status == arena_pb2.VERSION_TEST_SET_STATUS_COUNTED for s in test.sets
                )
                if (len(test.sets), test.status) != seen or counted:
                    print(progress(test))
                seen = len(test.sets), test.status
            if args.follow:
                print(f"{STATUS_WORDS.get(test.status, 'unknown')}: {estimate(test)}")

    asyncio.run(follow())
    return 0


def stop(args: argparse.Namespace) -> int:
    """Stop a running test."""
    request = arena_pb2.StopVersionTestRequest(test_id=args.test_id)
    done = asyncio.run(
        _call(args, lambda api: api.StopVersionTest(request, metadata=_metadata(args)))
    )
    print(f"version test {done.test_id} stopped; {estimate(done)}")
    return 0


def listing(args: argparse.Namespace) -> int:
    """Print the newest tests, a line each."""
    request = arena_pb2.ListVersionTestsRequest(
        limit=args.limit,
        status=LIST_STATUSES.get(args.status or "", arena_pb2.VERSION_TEST_STATUS_UNSPECIFIED),
    )
    found = asyncio.run(_call(args, lambda api: api.ListVersionTests(request)))
    if not found.tests:
        print("no version tests" + (f" {args.status}" if args.status else ""))
        return 0
    for test in found.tests:
        print(summary(test))
    return 0


def summary(test: arena_pb2.VersionTest) -> str:
    """One line of `arena test list`."""
    owner = f", by {test.owner}" if test.owner else ""
    started = test.created_at.ToDatetime()
    return (
        f"{test.test_id:>5}  {test.game:<9} {test.candidate} vs {test.baseline}, elo "
        f"{test.elo0:g}..{test.elo1:g}: {STATUS_WORDS.get(test.status, 'unknown')}; LLR "
        f"{test.llr:+.2f} in [{test.lower_bound:.2f}, {test.upper_bound:.2f}], "
        f"{test.matches_counted} matches counted; started {started:%Y-%m-%d %H:%M}{owner}"
    )


def lines(test: arena_pb2.VersionTest) -> list[str]:
    """The full report of a test."""
    fillers = f", fillers {', '.join(test.fillers)}" if test.fillers else ""
    cap = f", cap {test.max_matches} matches" if test.max_matches else ""
    out = [
        f"version test {test.test_id}: {test.game}, {test.candidate} (candidate) against "
        f"{test.baseline} (baseline), {test.seats} seats{fillers}{cap}",
        f"H0 elo {test.elo0:g}, H1 elo {test.elo1:g}, alpha {test.alpha:g}, beta {test.beta:g}: "
        f"{STATUS_WORDS.get(test.status, 'unknown')}",
        progress(test),
        f"estimate: {estimate(test)}",
    ]
    points = [s.llr for s in test.sets if s.status == arena_pb2.VERSION_TEST_SET_STATUS_COUNTED]
    out += chart(points, test.lower_bound, test.upper_bound)
    for s in test.sets[-10:]:
        score = (
            f" score {s.score:.2f}, LLR {s.llr:+.2f}"
            if s.status == arena_pb2.VERSION_TEST_SET_STATUS_COUNTED
            else ""
        )
        matches = ", ".join(str(m) for m in s.match_ids) or "none yet"
        out.append(
            f"  set {s.set_no} (attempt {s.attempt}) {SET_WORDS.get(s.status, '?')}{score}; "
            f"matches {matches}"
        )
    return out


def chart(
    points: list[float], low: float, high: float, rows: int = 9, width: int = 60
) -> list[str]:
    """The LLR after each counted set as a text chart between its bounds (the newest `width`)."""
    if not points:
        return []
    shown = points[-width:]
    grid = [[" "] * len(shown) for _ in range(rows)]
    for x, value in enumerate(shown):
        where = min(max((value - low) / (high - low), 0.0), 1.0)
        grid[rows - 1 - round(where * (rows - 1))][x] = "*"
    labels = [
        f"H1 {high:+.2f} " if r == 0 else f"H0 {low:+.2f} " if r == rows - 1 else " " * 10
        for r in range(rows)
    ]
    first = len(points) - len(shown) + 1
    return [
        *(f"  {label}|{''.join(line)}|" for label, line in zip(labels, grid, strict=True)),
        f"  {' ' * 10} sets {first}..{len(points)}",
    ]


def progress(test: arena_pb2.VersionTest) -> str:
    """The LLR on a bar between its bounds, and the sets so far."""
    low, high = test.lower_bound, test.upper_bound
    where = min(max((test.llr - low) / (high - low), 0.0), 1.0)
    bar = ["-"] * BAR
    bar[round(where * (BAR - 1))] = "*"
    zero = (0 - low) / (high - low)
    if 0 <= zero <= 1 and bar[round(zero * (BAR - 1))] == "-":
        bar[round(zero * (BAR - 1))] = "|"
    counted = sum(s.status == arena_pb2.VERSION_TEST_SET_STATUS_COUNTED for s in test.sets)
    playing = sum(s.status == arena_pb2.VERSION_TEST_SET_STATUS_PLAYING for s in test.sets)
    return (
        f"LLR {test.llr:+.3f} H0 {low:.2f} [{''.join(bar)}] {high:.2f} H1; "
        f"{counted} sets ({test.matches_counted} matches) counted, {playing} playing"
    )


def estimate(test: arena_pb2.VersionTest) -> str:
    """The Elo estimate with its 95% interval."""
    if not test.matches_counted:
        return "no sets counted yet"
    if math.isclose(test.elo_low, test.elo_high):
        return f"Elo {test.elo:+.1f} (every set scored the same)"
    return f"Elo {test.elo:+.1f} (95% interval {test.elo_low:+.1f} .. {test.elo_high:+.1f})"


def add_commands(sub: Any) -> None:
    """Add `arena test start|show|stop`."""
    parser = sub.add_parser("test", help="version tests: is a candidate stronger than a baseline?")
    t_sub = parser.add_subparsers(dest="test_command", required=True)
    begin = t_sub.add_parser(
        "start", help="start a version test of your bots or versions (a GSPRT over paired sets)"
    )
    begin.add_argument("--game", required=True, choices=engines.names(), help="the game")
    begin.add_argument(
        "--candidate", required=True, help="the bot under test: NAME, or NAME@LABEL (a version)"
    )
    begin.add_argument(
        "--baseline", required=True, help="what it is compared with: NAME or NAME@LABEL"
    )
    begin.add_argument("--elo0", type=float, default=0.0, help="H0's Elo (default: 0)")
    begin.add_argument("--elo1", type=float, default=5.0, help="H1's Elo (default: 5)")
    begin.add_argument(
        "--alpha", type=float, default=0.05, help="false-positive rate (default: 0.05)"
    )
    begin.add_argument(
        "--beta", type=float, default=0.05, help="false-negative rate (default: 0.05)"
    )
    begin.add_argument(
        "--fillers",
        default="",
        help="bots for the other seats, e.g. heuristic,random (default: none)",
    )
    begin.add_argument("--seats", type=positive(), default=2, help="seats per match (default: 2)")
    begin.add_argument("--max-matches", type=positive(), help="stop here with the estimate")
    add_per_decision(begin)
    begin.set_defaults(func=start)
    look = t_sub.add_parser("show", help="a version test: its LLR, sets and estimate")
    look.add_argument("test_id", type=positive(), help="the test's id")
    look.add_argument("--follow", action="store_true", help="keep printing until it stops")
    look.set_defaults(func=show)
    end = t_sub.add_parser("stop", help="stop a running version test (its owner or an admin)")
    end.add_argument("test_id", type=positive(), help="the test's id")
    end.set_defaults(func=stop)
    every = t_sub.add_parser("list", help="the newest version tests, a line each")
    every.add_argument("--status", choices=sorted(LIST_STATUSES), help="only tests in this state")
    every.add_argument(
        "--limit", type=positive(), default=20, help="at most this many (default: 20)"
    )
    every.set_defaults(func=listing)
    for p in (begin, look, end, every):
        add_target(p)
    for p in (begin, end):
        p.add_argument("--key", default="", help=KEY_HELP)
        p.add_argument("--admin-token", default="", help=ADMIN_TOKEN_HELP)
