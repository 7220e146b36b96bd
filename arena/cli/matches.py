"""`arena match` and `arena replay MATCH_ID`: play a match on a referee, replay a stored one."""

from __future__ import annotations

import argparse
import asyncio
import json
from datetime import timedelta
from typing import Any

import grpc

import engines
from arena.cli.errors import CliError, ExitCode, positive
from arena.cli.options import (
    add_per_decision,
    game_name,
    parse_options,
    per_decision_clock,
    split_names,
)
from arena.cli.target import ADMIN_TOKEN_HELP, add_target, admin_metadata, open_channel
from arena.render import Paint, final_lines, step_lines
from arena.v1 import arena_pb2, arena_pb2_grpc, common_pb2
from engines import Record
from engines.replay import driver_for, steps


def add_commands(sub: Any) -> None:
    """Add `arena match` to the `arena` parser."""
    match = sub.add_parser("match", help="admin: run one match between connected bots")
    match.add_argument("--game", required=True, type=game_name, help="the game")
    match.add_argument(
        "--bots", required=True, help="registered bot names in seat order, comma-separated"
    )
    match.add_argument("--seed", type=int, default=0, help="the match's seed (default: 0)")
    match.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a game option, repeatable (default: the game's defaults, see `arena games`)",
    )
    add_per_decision(match)
    match.add_argument(
        "--wait",
        type=positive(float),
        metavar="SECONDS",
        help="start even if some bots are not connected: wait up to SECONDS for them, then "
        "play without them (an absent bot loses its turns on time and forfeits). Without it, "
        "a match with a bot that is not connected is refused at once",
    )
    add_target(match)
    match.add_argument("--admin-token", default="", help=ADMIN_TOKEN_HELP)
    match.add_argument(
        "--every", type=positive(), default=25, help="print every Nth decision (default: 25)"
    )
    match.set_defaults(func=lambda a: asyncio.run(_match(a)))


async def _match(args: argparse.Namespace) -> int:
    options = parse_options(args.option)
    bots = split_names(args.bots)
    rules = engines.get(args.game)
    if len(bots) not in rules.seat_counts:
        raise CliError(
            f"{rules.name} is played by {min(rules.seat_counts)}-{max(rules.seat_counts)} seats, "
            f"not {len(bots)}",
            "name one bot per seat in --bots",
        )
    rules.resolve_options(options)
    request = arena_pb2.CreateMatchRequest(
        game=args.game,
        bots=bots,
        seed=args.seed,
        clock=per_decision_clock(args),
        require_connected=args.wait is None,
    )
    if args.wait is not None:
        request.connect_timeout.FromTimedelta(timedelta(seconds=args.wait))
    request.options.update(options)
    metadata = admin_metadata(args)
    paint = Paint()
    async with open_channel(args) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        match = await _create(stub, request, metadata)
        print(paint.bold(f"match {match.match_id}: {args.game} between {args.bots}"))
        if args.wait is not None:
            absent = await _absent(stub, bots)
            if absent:
                print(
                    f"not connected yet: {', '.join(absent)}; the match waits up to "
                    f"{args.wait:g} s for them, then starts and plays their turns on time"
                )
        final = None
        async for event in stub.WatchMatch(arena_pb2.WatchMatchRequest(match_id=match.match_id)):
            if event.HasField("final"):
                final = event.final
            elif event.decision >= 0 and (event.decision % args.every == 0):
                print(f"  decision {event.decision:>5}  {event.label}")
    if final is None:
        print("the match did not finish")
        return ExitCode.FAILED
    print(paint.bold(f"result ({common_pb2.Termination.Name(final.termination)[12:].lower()}):"))
    for seat in sorted(final.seats, key=lambda s: (s.rank, s.seat)):
        note = " (forfeited)" if seat.forfeited else ""
        print(
            f"  {seat.rank}. {paint.seat(seat.seat, seat.bot)}  score {seat.score:g}  "
            f"strikes {seat.strikes}{note}"
        )
    return 0


async def _create(
    stub: arena_pb2_grpc.ArenaServiceAsyncStub,
    request: arena_pb2.CreateMatchRequest,
    metadata: Any,
) -> arena_pb2.Match:
    """CreateMatch, with the referee's "not connected" refusal said as what to do about it."""
    try:
        return await stub.CreateMatch(request, metadata=metadata)
    except grpc.aio.AioRpcError as exc:
        details = exc.details() or ""
        if exc.code() != grpc.StatusCode.FAILED_PRECONDITION or "not connected" not in details:
            raise
        raise CliError(
            f"the match was not created: {details}",
            "start those bots (`arena bot run --token ...`) and try again, or pass --wait "
            "SECONDS to start anyway and let an absent bot lose on time",
            ExitCode.UNAVAILABLE,
        ) from None


async def _absent(stub: arena_pb2_grpc.ArenaServiceAsyncStub, bots: list[str]) -> list[str]:
    """The names among `bots` that no live referee has a stream from."""
    connected = await stub.ListBots(arena_pb2.ListBotsRequest())
    present = {bot.name for bot in connected.bots}
    return [name for name in bots if name not in present]


async def _fetch_replay(args: argparse.Namespace, match_id: int) -> arena_pb2.Replay:
    async with open_channel(args) as grpc_channel:
        stub = arena_pb2_grpc.ArenaServiceStub(grpc_channel)
        return await stub.GetReplay(arena_pb2.GetReplayRequest(match_id=match_id))


def replay_stored(args: argparse.Namespace) -> int:
    """`arena replay MATCH_ID`: fetch the record from the arena, replay it here, show its log."""
    match_id = int(args.source)
    reply = asyncio.run(_fetch_replay(args, match_id))
    record = Record.from_json(json.loads(reply.record_json))
    rules = engines.get(record.game)
    names = {s.seat: s.bot for s in reply.match.seats}
    paint = Paint(names=names)
    print(paint.bold(f"match {match_id}: {rules.title}, {record.seats} seats, seed {record.seed}"))
    for seat in range(record.seats):
        print(f"  {paint.seat(seat, f'seat {seat}')} played {names.get(seat, '?')}")
    final = driver_for(rules, record).state  # the setup, for a record with no moves
    for step in steps(rules, record):
        if not args.quiet:
            lines = step_lines(
                rules, step.before, step.decision, step.joint, step.after, paint, step.events
            )
            print("\n".join(lines))
        final = step.after
    outcome = rules.outcome(final)
    print(
        f"match {match_id}: {len(record.moves)} decisions replayed through {rules.name} "
        f"v{rules.version}"
    )
    if outcome is None:
        print("the match is not over yet; the replayed prefix is consistent")
        return 0
    for line in final_lines(rules, final, outcome, paint):
        print(line)
    if reply.match.status == common_pb2.MATCH_STATUS_FINISHED:
        stored = [s.rank for s in sorted(reply.match.seats, key=lambda s: s.seat)]
        forfeits = any(s.forfeited for s in reply.match.seats)
        if not forfeits and stored != list(outcome.ranks):
            print(f"MISMATCH: stored ranks {stored}, replayed ranks {list(outcome.ranks)}")
            return ExitCode.FAILED
        print(f"the final state matches the stored result: ranks {list(outcome.ranks)}")
    return 0
