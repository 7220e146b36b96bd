"""The `arena` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import engines
from arena.cli import accounts as accounts_cli
from arena.cli import matches as matches_cli
from arena.cli import runners as runners_cli
from arena.cli import serve as service_cli
from arena.cli.errors import CliError, ExitCode, Parser, positive, run_command
from arena.cli.options import game_name, parse_options, split_names
from arena.cli.target import ADDRESS_HELP, add_target
from arena.render import Paint, final_lines, step_lines
from arena.sdk.bots import strategy, strategy_names
from arena.sdk.local import play_local
from engines import EngineError, Record
from engines.registry import openspiel_names


def _cmd_games(args: argparse.Namespace) -> int:
    for name in engines.names():
        _print_game(engines.get(name))
    try:
        for name in openspiel_names():
            _print_game(engines.get(name))
        print("openspiel/<name> plays any other OpenSpiel game with the option unchecked=true")
    except EngineError as exc:  # the optional open-spiel wheel is missing
        print(f"{', '.join(openspiel_names())}: {exc}")
    return 0


def _print_game(rules: Any) -> None:
    seats = f"{min(rules.seat_counts)}-{max(rules.seat_counts)}"
    print(f"{rules.name:<10} {rules.title} (v{rules.version}, {seats} seats)")
    for opt in rules.options_schema:
        print(f"    {opt.name}={json.dumps(opt.default)}  ({opt.type.__name__}) {opt.description}")


def _cmd_play(args: argparse.Namespace) -> int:
    rules = engines.get(args.game)
    names = split_names(args.bots) if args.bots else []
    seats = args.seats or len(names) or min(rules.seat_counts)
    if seats not in rules.seat_counts:
        raise CliError(
            f"{rules.name} is played by {min(rules.seat_counts)}-{max(rules.seat_counts)} seats, "
            f"not {seats}",
            "pass --seats or as many --bots",
        )
    known = strategy_names(args.game)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise CliError(
            f"no {args.game} strategy named {unknown[0]!r}", f"choose from {', '.join(known)}"
        )
    if not names:
        names = ["heuristic" if "heuristic" in known else "random"]
    names = (names * seats)[:seats] if len(names) < seats else names[:seats]
    paint = Paint(None if args.color == "auto" else args.color == "always")
    bots = [strategy(args.game, n) for n in names]
    options = parse_options(args.option)
    rules.resolve_options(options)  # a bad option is reported before anything is printed
    print(paint.bold(f"{rules.title}: {seats} seats, seed {args.seed}"))
    for seat, name in enumerate(names):
        print(f"  {paint.seat(seat)} plays {name}")

    def show(before: Any, decision: engines.Decision, joint: Any, after: Any, events: Any) -> None:
        for line in step_lines(rules, before, decision, joint, after, paint, events):
            print(line)

    match = play_local(args.game, bots, args.seed, options, None if args.quiet else show)
    for line in final_lines(rules, match.final, match.outcome, paint):
        print(line)
    if match.bad_answers:
        print(f"{len(match.bad_answers)} bad answer(s) were replaced by the default action")
    if args.record:
        Path(args.record).write_text(json.dumps(match.record.to_json(), indent=1) + "\n")
        print(f"record written to {args.record}")
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    target = Path(args.source)
    if not target.exists() and args.source.isdigit():
        return matches_cli.replay_stored(args)  # a match id: fetch it from the arena
    if not target.exists():
        raise CliError(
            f"{args.source!r} is neither a record file nor a match id",
            "pass a file written by `arena play --record` or a match id",
            ExitCode.NOT_FOUND,
        )
    try:
        record = Record.from_json(json.loads(target.read_text()))
    except (ValueError, EngineError) as exc:
        raise CliError(
            f"{target} is not a match record: {exc}",
            "pass a file written by `arena play --record`",
        ) from None
    rules = engines.get(record.game)
    final = engines.replay(rules, record)
    outcome = rules.outcome(final)
    if outcome is None:
        print(f"{target}: the record stops before the match ends ({len(record.moves)} moves)")
        return ExitCode.FAILED
    print(f"{target}: {len(record.moves)} decisions replayed, the final state matches the rules")
    for line in final_lines(rules, final, outcome, Paint()):
        print(line)
    return 0


def _cmd_rules(args: argparse.Namespace) -> int:
    rules = engines.get(args.game)
    printer = getattr(rules, "print_data", None)
    print(f"{rules.title} (rules v{rules.version}); seats {list(rules.seat_counts)}")
    for opt in rules.options_schema:
        print(f"  option {opt.name} = {json.dumps(opt.default)}: {opt.description}")
    if printer is not None:
        for line in printer():
            print(line)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = Parser(
        prog="arena",
        description=__doc__,
        epilog="Exit status: 0 done, 1 the answer is no (e.g. a replay mismatch), 2 usage, "
        "3 not found, 4 refused (token, name taken), 5 unavailable, 6 arena failure.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("games", help="list games and their options").set_defaults(func=_cmd_games)

    play = sub.add_parser("play", help="play one match in process and print a readable log")
    play.add_argument("game", type=game_name, help="the game (see `arena games`)")
    play.add_argument(
        "--seats",
        type=positive(),
        help="number of seats (default: as many as --bots, else the game's fewest)",
    )
    play.add_argument("--seed", type=int, default=0, help="the match's seed (default: 0)")
    play.add_argument(
        "--bots",
        help="comma-separated strategies in seat order, repeated to fill the seats, e.g. "
        "heuristic,random (default: heuristic where the game has one, else random)",
    )
    play.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a game option, repeatable; VALUE is JSON or a bare string "
        "(default: the game's defaults, see `arena games`)",
    )
    play.add_argument("--record", metavar="FILE", help="write the match record to FILE")
    play.add_argument("--quiet", action="store_true", help="print only the result")
    play.add_argument(
        "--color",
        choices=["auto", "always", "never"],
        default="auto",
        help="colour the log (default: auto, i.e. on a terminal)",
    )
    play.set_defaults(func=_cmd_play)

    rep = sub.add_parser(
        "replay",
        help="replay a record FILE, or a MATCH_ID stored by a running arena, and verify it",
    )
    rep.add_argument(
        "source",
        metavar="FILE|MATCH_ID",
        help="a record written by `arena play --record`, or the id of a match the arena stored",
    )
    add_target(rep, f"the arena to fetch MATCH_ID from: {ADDRESS_HELP}")
    rep.add_argument("--quiet", action="store_true", help="print only the verdict and result")
    rep.set_defaults(func=_cmd_replay)

    rules = sub.add_parser("rules", help="print a game's options and data, with provenance marks")
    rules.add_argument("game", choices=engines.names(), help="the game")
    rules.set_defaults(func=_cmd_rules)

    service_cli.add_commands(sub)
    accounts_cli.add_commands(sub)
    runners_cli.add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `arena` console script."""
    args = build_parser().parse_args(argv)
    return run_command(args.func, args)


if __name__ == "__main__":
    sys.exit(main())
