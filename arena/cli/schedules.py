"""`arena schedule create|list|pause|delete` (recurring tournaments) and `arena ladder`."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from arena.cli import entrants as entrant_cli
from arena.cli.errors import positive
from arena.cli.options import add_per_decision, game_name, per_decision_clock, split_names
from arena.cli.target import ADMIN_TOKEN_HELP, add_target, admin_metadata, open_channel
from arena.tournament.schedules import next_daily, parse_every
from arena.v1 import arena_pb2, arena_pb2_grpc

FORMAT_NAMES = {v: k for k, v in entrant_cli.FORMATS.items()}


Reply = TypeVar("Reply")


async def _call(
    args: argparse.Namespace,
    use: Callable[[arena_pb2_grpc.ArenaServiceAsyncStub], Awaitable[Reply]],
) -> Reply:
    async with open_channel(args) as channel:
        return await use(arena_pb2_grpc.ArenaServiceStub(channel))


def create(args: argparse.Namespace) -> int:
    """Create a schedule from --every or --daily-at and print it."""
    if bool(args.every) == bool(args.daily_at):
        raise ValueError("give exactly one of --every (e.g. 6h) and --daily-at (HH:MM UTC)")
    now = datetime.now(UTC)
    if args.every:
        every, first = parse_every(args.every), now
    else:
        every, first = parse_every("1d"), next_daily(args.daily_at, now)
    request = arena_pb2.CreateScheduleRequest(
        name=args.name,
        game=args.game,
        bots=split_names(args.bots),
        table_size=args.table_size,
        rounds=args.rounds,
        format=entrant_cli.FORMATS[args.format],
        rating_system=entrant_cli.RATING_SYSTEMS[args.rating_system],
        clock=per_decision_clock(args),
    )
    request.every.FromTimedelta(every)
    request.first_run.FromDatetime(first)
    made = asyncio.run(
        _call(args, lambda api: api.CreateSchedule(request, metadata=admin_metadata(args)))
    )
    print(line(made))
    return 0


def list_all(args: argparse.Namespace) -> int:
    """Print every schedule."""
    reply = asyncio.run(
        _call(args, lambda api: api.ListSchedules(arena_pb2.ListSchedulesRequest()))
    )
    if not reply.schedules:
        print("no schedules")
    for s in reply.schedules:
        print(line(s))
    return 0


def pause(args: argparse.Namespace) -> int:
    """Pause (or with --resume resume) a schedule."""
    request = arena_pb2.PauseScheduleRequest(schedule_id=args.schedule_id, resume=args.resume)
    done = asyncio.run(
        _call(args, lambda api: api.PauseSchedule(request, metadata=admin_metadata(args)))
    )
    print(line(done))
    return 0


def delete(args: argparse.Namespace) -> int:
    """Delete a schedule; its editions stay."""
    request = arena_pb2.DeleteScheduleRequest(schedule_id=args.schedule_id)
    asyncio.run(_call(args, lambda api: api.DeleteSchedule(request, metadata=admin_metadata(args))))
    print(f"schedule {args.schedule_id} deleted")
    return 0


def line(s: arena_pb2.Schedule) -> str:
    """One schedule as a line."""
    entrants = ",".join(s.bots) if s.bots else "every connected bot"
    state = "paused" if s.paused else f"next {s.next_run.ToDatetime():%Y-%m-%d %H:%M:%S} UTC"
    return (
        f"{s.schedule_id:>4}  {s.name:<20} {s.game:<9} {FORMAT_NAMES.get(s.format, '?'):<11}"
        f" every {s.every.ToTimedelta()}  {state}  editions {s.editions}  entrants {entrants}"
    )


def add_commands(sub: Any) -> None:
    """Add `arena schedule ...`."""
    schedule = sub.add_parser("schedule", help="recurring tournaments")
    s_sub = schedule.add_subparsers(dest="schedule_command", required=True)
    c = s_sub.add_parser("create", help="admin: create a recurring tournament")
    c.add_argument("--name", required=True, help="a unique name; editions are '<name> #<n>'")
    c.add_argument("--game", required=True, type=game_name, help="the game to play")
    c.add_argument(
        "--bots",
        default="",
        help="comma-separated entrants (default: every bot connected when an edition starts)",
    )
    c.add_argument("--table-size", type=positive(), default=4, help="seats per table (default: 4)")
    c.add_argument(
        "--rounds",
        type=positive(zero=True),
        default=0,
        help="rounds per edition (default: 0, chosen from the field size)",
    )
    entrant_cli.add_format_flags(c)
    add_per_decision(c)
    c.add_argument(
        "--every", default="", help="period, e.g. 6h, 30m, 1d (default: none; or --daily-at)"
    )
    c.add_argument(
        "--daily-at",
        default="",
        help="time of day in UTC, e.g. 02:00 (default: none; or --every)",
    )
    c.set_defaults(func=create)
    ls = s_sub.add_parser("list", help="list schedules")
    ls.set_defaults(func=list_all)
    p = s_sub.add_parser("pause", help="admin: pause a schedule (or --resume it)")
    p.add_argument("schedule_id", type=positive(), help="the schedule's id")
    p.add_argument("--resume", action="store_true", help="resume it instead of pausing")
    p.set_defaults(func=pause)
    d = s_sub.add_parser("delete", help="admin: delete a schedule (its editions stay)")
    d.add_argument("schedule_id", type=positive(), help="the schedule's id")
    d.set_defaults(func=delete)
    for parser in (c, ls, p, d):
        add_target(parser)
        parser.add_argument("--admin-token", default="", help=ADMIN_TOKEN_HELP)


def ladder(args: argparse.Namespace) -> int:
    """Start or stop a game's continuous ladder."""
    if args.ladder_command == "start":
        request = arena_pb2.StartLadderRequest(
            game=args.game,
            table_size=args.table_size,
            concurrency=args.concurrency,
            clock=per_decision_clock(args),
        )
        done = asyncio.run(
            _call(args, lambda api: api.StartLadder(request, metadata=admin_metadata(args)))
        )
        print(
            f"ladder of {done.game} running: {done.table_size}-seat tables, at most"
            f" {done.concurrency} at once per bot"
        )
    else:
        stop = arena_pb2.StopLadderRequest(game=args.game)
        asyncio.run(_call(args, lambda api: api.StopLadder(stop, metadata=admin_metadata(args))))
        print(f"ladder of {args.game} stopped; matches in play will finish")
    return 0


def add_ladder_commands(sub: Any) -> None:
    """Add `arena ladder start|stop`."""
    parser = sub.add_parser("ladder", help="a game's continuous ladder")
    l_sub = parser.add_subparsers(dest="ladder_command", required=True)
    start = l_sub.add_parser("start", help="admin: keep making matches among connected bots")
    start.add_argument(
        "--table-size", type=positive(), default=4, help="seats per table (default: 4)"
    )
    start.add_argument(
        "--concurrency",
        type=positive(),
        default=1,
        help="ladder matches a bot may play at once (default: 1)",
    )
    add_per_decision(start)
    stop = l_sub.add_parser("stop", help="admin: stop making ladder matches")
    for p in (start, stop):
        p.add_argument("--game", required=True, type=game_name, help="the ladder's game")
        add_target(p)
        p.add_argument("--admin-token", default="", help=ADMIN_TOKEN_HELP)
        p.set_defaults(func=ladder)
