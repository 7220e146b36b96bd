"""`arena bot register|run|test`: register a bot, run a reference bot, try a bot program."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from datetime import timedelta
from typing import Any

from arena.cli import botstats as botstats_cli
from arena.cli import owned_bots as owned_bots_cli
from arena.cli import uploads as uploads_cli
from arena.cli.bot_report import BotReport
from arena.cli.bot_trial import Trial, bot_command
from arena.cli.errors import CliError, ExitCode, positive
from arena.cli.options import add_per_decision, game_name
from arena.cli.target import (
    ADDRESS_HELP,
    account_metadata,
    add_target,
    addresses_of,
    client_tls,
    open_channel,
)
from arena.ops.logs import logged
from arena.sdk import BotRejected, BotReplaced, StrategyBot, TlsMismatch
from arena.sdk.bots import strategy_names
from arena.v1 import arena_pb2, arena_pb2_grpc


def add_commands(sub: Any) -> None:
    """Add `arena bot` and its subcommands to the `arena` parser."""
    bot = sub.add_parser("bot", help="register or run bots")
    bot_sub = bot.add_subparsers(dest="bot_command", required=True)
    reg = bot_sub.add_parser("register", help="register a bot and print its token")
    reg.add_argument("name", help="1-64 letters, digits, '.', '_' or '-'")
    add_target(reg)
    reg.add_argument("--quiet", action="store_true", help="print only the token")
    reg.add_argument(
        "--admin-token",
        default="",
        help="needed only when the arena's registration is closed (default: none)",
    )
    reg.set_defaults(func=lambda a: asyncio.run(_register(a)))
    run = bot_sub.add_parser("run", help="run a reference bot process")
    run.add_argument(
        "--strategy",
        default="heuristic",
        choices=["random", "heuristic", "mcts", "cfr"],
        help="how it plays (default: heuristic): mcts for OpenSpiel's games of perfect "
        "information, cfr for kuhn and leduc poker; random where a game has no such strategy",
    )
    run.add_argument(
        "--game",
        default="",
        help="the game it is meant for: checks at once that the strategy plays it "
        "(default: none; it plays every match it gets)",
    )
    run.add_argument("--token", default="", help="the bot's token (default: ARENA_BOT_TOKEN)")
    add_target(run, f"{ADDRESS_HELP}; with several it fails over to the next when a referee drops")
    run.add_argument("--seed", type=int, help="seed of its random choices (default: random)")
    run.add_argument(
        "--report",
        choices=["auto", "lines", "none"],
        default="auto",
        help="print a line per match start/end, Problem and a periodic summary on stdout: "
        "lines, none, or auto = on a terminal (default: auto)",
    )
    run.add_argument(
        "--summary-every",
        type=positive(float),
        default=60.0,
        help="seconds between summary lines (default: 60)",
    )
    run.set_defaults(func=lambda a: logged("bot", lambda: _bot_run(a)))
    botstats_cli.add_stats_command(bot_sub)
    owned_bots_cli.add_commands(bot_sub)
    uploads_cli.add_command(bot_sub)
    trial = bot_sub.add_parser(
        "test",
        help="play your bot program against the reference bots in a throwaway local arena and "
        "report every illegal or late answer",
        description="Starts a referee on a free loopback port over a throwaway database, runs "
        "your program with ARENA_ADDRESS and ARENA_BOT_TOKEN in its environment, and plays "
        "--matches matches against reference bots, your seat rotating.",
    )
    trial.add_argument(
        "file",
        nargs="?",
        default="",
        help="your bot: a .py file (run with this Python) or an executable",
    )
    trial.add_argument(
        "--cmd",
        default="",
        help='the command that runs your bot instead of FILE, e.g. "node bot.js" (default: none)',
    )
    trial.add_argument(
        "--game",
        default="hart",
        type=game_name,
        help="hart, crossing, loyang or openspiel/<name> (default: hart)",
    )
    trial.add_argument("--matches", type=positive(), default=3, help="matches to play (default: 3)")
    trial.add_argument(
        "--seats", type=positive(), help="seats per match (default: the game's fewest)"
    )
    trial.add_argument(
        "--opponents",
        choices=["heuristic", "random", "mcts", "cfr"],
        default="heuristic",
        help="the reference strategy of the other seats, random where a game has none of that "
        "name (default: heuristic)",
    )
    add_per_decision(
        trial, 2.0, help="seconds per decision, with no time bank: a slower answer is late"
    )
    trial.add_argument("--seed", type=int, default=1, help="first match's seed (default: 1)")
    trial.set_defaults(func=_bot_test)


async def _register(args: argparse.Namespace) -> int:
    async with open_channel(args) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        # An admin token registers even where registration is closed; an account's key (the
        # stored login) makes the account the bot's owner.
        token = args.admin_token
        metadata = (
            (("authorization", f"Bearer {token}"),)
            if token
            else account_metadata(args, required=False)
        )
        reply = await stub.RegisterBot(
            arena_pb2.RegisterBotRequest(name=args.name), metadata=metadata
        )
    if args.quiet:
        print(reply.token)
    else:
        print(f"registered bot {reply.name} (id {reply.bot_id})")
        print(f"token (shown once, keep it secret): {reply.token}")
    return 0


def _bot_run(args: argparse.Namespace) -> int:
    if args.game:
        known = strategy_names(args.game)
        if args.strategy not in known:
            raise CliError(
                f"{args.game} has no {args.strategy} strategy",
                f"choose from {', '.join(known)}, or leave --game out to play random there",
            )
    token = args.token or os.environ.get("ARENA_BOT_TOKEN", "")
    if not token:
        raise CliError(
            "arena bot run needs a bot token",
            "pass --token or set ARENA_BOT_TOKEN (`arena bot register NAME` prints one)",
        )
    addresses = addresses_of(args)  # a bad list fails here, before anything connects
    address = ",".join(addresses)
    bot = StrategyBot(args.strategy, args.seed)
    report = args.report == "lines" or (args.report == "auto" and sys.stdout.isatty())
    if report:
        bot.report = BotReport(sys.stdout, timedelta(seconds=args.summary_every))
        # The report says what the SDK's info lines would (connected, ...): keep warnings only.
        logging.getLogger("arena.sdk").setLevel(logging.WARNING)
    try:
        bot.run(addresses, token, client_tls(args))
    except TlsMismatch as exc:
        raise CliError(exc.problem.message, exc.problem.hint, ExitCode.UNAVAILABLE) from None
    except BotReplaced as exc:
        raise CliError(
            f"stopped: {exc}",
            "another process uses this bot's token; stop one of them",
            ExitCode.REFUSED,
        ) from None
    except BotRejected as exc:
        raise CliError(
            f"the referee at {address} refused this bot: {exc}",
            "check the token (`arena bot register` prints it once)",
            ExitCode.REFUSED,
        ) from None
    finally:
        if bot.report is not None:
            bot.report.stopped("stopped")
    return 0


def _bot_test(args: argparse.Namespace) -> int:
    trial = Trial(
        argv=bot_command(args.file, args.cmd),
        game=args.game,
        matches=args.matches,
        seats=args.seats or 0,
        opponents=args.opponents,
        per_decision=args.per_decision,
        seed=args.seed,
        out=sys.stdout,
    )
    report = trial.run()
    return ExitCode.FAILED if report.faults or report.forfeits else ExitCode.OK
