"""The `arena-bot` npm package (sdk/node/): `npm pack` of a copy of the package folder (its build
copies proto/ and generates the message types), a clean npm project installs the tarball, and the
Node example (examples/node-bot/bot.js) on it plays every game over the wire against a referee.
Needs node and npm, and the npm registry (or npm's cache) for grpc-js, proto-loader and tsc."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import engines
from arena.ops.tls import ServerTls
from arena.sdk import StrategyBot
from arena.sdk.tls import ClientTls
from engines.registry import openspiel_names
from tests.cli.conftest import RefereeThread
from tests.referee.bots import RandomBot
from tests.referee.harness import (
    _until_connected,
    create_match,
    register,
    running_referee,
    wait_finished,
)
from tests.referee.test_follow_host import relayed, two_referees, until_present
from tests.tlscerts import Pki

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "sdk"))
from check_links import broken_links  # sdk/ is a folder of scripts, not a package

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("npm") is None, reason="no npm on PATH"),
]

ROOT = Path(__file__).resolve().parents[2]
BUILT = ("node_modules", "proto", "gen", "types", "docs")
"""What the package's build and npm make inside sdk/node/: never copied from a work tree."""


def _npm(*args: str, cwd: Path) -> str:
    done = subprocess.run(
        ["npm", "--no-fund", "--no-audit", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of sdk/node (beside a copy of proto/, as in the repository), `npm ci` done."""
    tmp = tmp_path_factory.mktemp("node")
    folder = tmp / "repo" / "sdk" / "node"
    shutil.copytree(ROOT / "sdk" / "node", folder, ignore=shutil.ignore_patterns(*BUILT))
    shutil.copytree(ROOT / "proto", tmp / "repo" / "proto")
    _npm("ci", cwd=folder)
    return folder


@pytest.fixture(scope="module")
def app(package: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clean npm project with the packed arena-bot installed and the example bot beside it."""
    tmp = tmp_path_factory.mktemp("app")
    tarball = tmp / _npm("pack", "--pack-destination", str(tmp), cwd=package).split()[-1]
    with tarfile.open(tarball) as archive:
        names = set(archive.getnames())
    for name in ("src/bot.js", "proto/arena/v1/bot.proto", "types/src/index.d.ts"):
        assert f"package/{name}" in names, sorted(names)
    assert "package/types/gen/arena/v1/DecisionRequest.d.ts" in names

    project = tmp / "app"
    project.mkdir()
    _npm("init", "-y", cwd=project)
    _npm("install", str(tarball), cwd=project)
    shutil.copy(ROOT / "examples" / "node-bot" / "bot.js", project / "bot.js")
    return project


@pytest.mark.parametrize("game", ["hart", "crossing", "loyang"])
def test_the_packed_example_plays_every_game(app: Path, game: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NODE_PATH"}
    trial = [sys.executable, "-m", "arena.cli.main", "bot", "test", "--matches", "1"]
    done = subprocess.run(
        [
            *trial,
            "--game",
            game,
            "--cmd",
            f"node {app / 'bot.js'} --random",
            "--opponents",
            "random",
        ],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=app,
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 matches: " in done.stdout and " 0 bad answers" in done.stdout, done.stdout


def test_an_unreachable_arena_is_said_once_and_retried(app: Path) -> None:
    script = (
        "const { Bot } = require('arena-bot');"
        "class B extends Bot { decide(t) { return t.choices()[0]; } }"
        "new B().run('127.0.0.1:9', 'x').catch((e) => { console.log(e.name); });"
        "setTimeout(() => process.exit(3), 1500);"
    )
    done = subprocess.run(
        ["node", "-e", script], cwd=app, capture_output=True, text=True, timeout=30
    )
    # Nothing listens on port 9: the bot keeps trying (exit 3 from the timer), never throws.
    assert done.returncode == 3, done.stdout + done.stderr
    assert "cannot reach the arena at 127.0.0.1:9" in done.stderr


def test_the_typedoc_reference_builds_without_broken_links(package: Path, tmp_path: Path) -> None:
    # TypeDoc treats its warnings (a type it links to but does not document) as errors.
    _npm("run", "docs", "--", "--out", str(tmp_path / "docs"), cwd=package)
    assert (tmp_path / "docs" / "classes" / "src.Bot.html").is_file()
    assert broken_links(tmp_path / "docs") == []


# -- over TLS (the package's tls.js, read like the Python SDK's settings) --------------
@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return Pki.create(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def tls_referee(migrated_database_url: str, pki: Pki) -> Iterator[RefereeThread]:
    thread = RefereeThread(migrated_database_url, ServerTls(pki.server_cert, pki.server_key))
    thread.start()
    yield thread
    thread.stop()


def _node_bot(app: Path, address: str, token: str, *flags: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "NODE_PATH"}
    for name in ("ARENA_TLS", "ARENA_TLS_CA", "ARENA_TLS_CLIENT_CERT", "ARENA_TLS_CLIENT_KEY"):
        env.pop(name, None)
    argv = ["node", str(app / "bot.js"), "--address", address, "--token", token, *flags]
    return subprocess.Popen(
        argv, cwd=app, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_the_node_bot_plays_a_match_over_tls(
    app: Path, tls_referee: RefereeThread, pki: Pki
) -> None:
    trusted = ClientTls(enabled=True, ca=pki.ca)
    address = tls_referee.address
    tokens = [tls_referee.call(register(address, n, trusted)) for n in ("node-tls", "py-tls")]
    node = _node_bot(app, address, str(tokens[0]), "--tls-ca", str(pki.ca), "--matches", "1")
    python = RandomBot(3)

    async def scenario() -> None:
        task = asyncio.create_task(python.run_async(address, str(tokens[1]), trusted))
        try:
            for _ in range(200):  # until the node bot is connected
                if python.bot_name and node.poll() is None:
                    break
                await asyncio.sleep(0.05)
            await asyncio.sleep(1)
            match_id = await create_match(address, "crossing", ["node-tls", "py-tls"], tls=trusted)
            await wait_finished(address, match_id, tls=trusted)
        finally:
            python.stop()
            await task

    try:
        asyncio.run(scenario())
        out, err = node.communicate(timeout=30)
    finally:
        node.kill()
        node.communicate()  # reaps it and closes its pipes
    assert node.returncode == 0, err
    assert f"connected to {address} as node-tls" in err, err
    assert " ended (TERMINATION_" in out, out  # index 0 every time may end at the turn limit


def test_the_node_bot_says_in_one_line_that_it_does_not_trust_the_referee(
    app: Path, tls_referee: RefereeThread, pki: Pki
) -> None:
    node = _node_bot(app, tls_referee.address, "any-token", "--tls-ca", str(pki.other_ca))
    try:
        _, err = node.communicate(timeout=60)
    finally:
        node.kill()
        node.communicate()  # reaps it and closes its pipes
    assert node.returncode == 1, err
    stopped = [line for line in err.splitlines() if line.startswith("stopped:")]
    assert stopped == [
        f"stopped: the referee's certificate at {tls_referee.address} is not trusted (the CA "
        f"in {pki.other_ca} did not sign it); pass --tls-ca FILE with the CA that signed it "
        "(or set ARENA_TLS_CA)"
    ], err


def test_the_node_bot_plays_every_curated_openspiel_game(
    app: Path, fresh_database_url: str
) -> None:
    """Issue 31's bar: every curated OpenSpiel game plays a match over gRPC with the Node example
    in seat 0 and Python bots in the others, every answer legal and in time."""
    pytest.importorskip("pyspiel")
    names = ["node", "py1", "py2", "py3"]
    pythons = [RandomBot(seed) for seed in range(1, 4)]

    async def scenario() -> tuple[list[str], str]:
        failed = []
        async with running_referee(fresh_database_url) as server:
            tokens = [await register(server.address, name) for name in names]
            node = _node_bot(app, server.address, tokens[0], "--random")
            tasks = [
                asyncio.create_task(bot.run_async(server.address, token))
                for bot, token in zip(pythons, tokens[1:], strict=True)
            ]
            try:
                await _until_connected(server.address, len(names))
                for game in openspiel_names():
                    rules = engines.get(game)
                    seats = min(rules.seat_counts)
                    options = dict(rules.conformance_options)
                    match_id = await create_match(server.address, game, names[:seats], **options)
                    match = await wait_finished(server.address, match_id)
                    if any(s.strikes for s in match.seats):
                        failed.append(f"{game}: strikes {[s.strikes for s in match.seats]}")
            finally:
                for bot in pythons:
                    bot.stop()
                await asyncio.gather(*tasks, return_exceptions=True)
                node.kill()
                out, _ = node.communicate()  # reaps it and closes its pipes
        return failed, out

    failed, out = asyncio.run(scenario())
    assert failed == []
    assert out.count(" ended (TERMINATION_") == len(openspiel_names()), out
    assert not [p for bot in pythons for p in bot.problems]


def test_the_leduc_bot_of_the_protocol_page_plays(app: Path, fresh_database_url: str) -> None:
    """docs/protocol.md's Node bot for leduc poker, run as written, against the CFR bot."""
    pytest.importorskip("pyspiel")
    text = (ROOT / "docs" / "protocol.md").read_text()
    (app / "leduc.js").write_text(text.split("```js\n", 1)[1].split("```", 1)[0])
    solver = StrategyBot("cfr", seed=2)
    # Solved before the matches (about 1.5 s, once per process): the test clock is 2 s a decision.
    importlib.import_module("arena.sdk.bots.openspiel").solved_policy("leduc_poker(players=2)")

    async def scenario() -> list[int]:
        async with running_referee(fresh_database_url) as server:
            tokens = [await register(server.address, name) for name in ("doc", "cfr")]
            env = {k: v for k, v in os.environ.items() if k != "NODE_PATH"}
            env.update(ARENA_ADDRESS=server.address, ARENA_BOT_TOKEN=tokens[0])
            node = subprocess.Popen(
                ["node", "leduc.js"], cwd=app, env=env, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True,
            )  # fmt: skip
            task = asyncio.create_task(solver.run_async(server.address, tokens[1]))
            try:
                await _until_connected(server.address, 2)
                strikes = []
                for seed in range(4):
                    match_id = await create_match(
                        server.address, "openspiel/leduc_poker", ["doc", "cfr"], seed=seed
                    )
                    match = await wait_finished(server.address, match_id)
                    strikes += [s.strikes for s in match.seats]
            finally:
                solver.stop()
                await task
                node.kill()
                node.communicate()  # reaps it and closes its pipes
        return strikes

    assert asyncio.run(scenario()) == [0] * 8


def test_the_node_bot_follows_its_match_to_the_referee_hosting_it(
    app: Path, fresh_database_url: str, isolated_redis_url: str
) -> None:
    """The example on ref-a, three Python bots on ref-b, a match created through ref-b: the Node
    bot moves to ref-b, and the match's messages do not cross between the referees."""

    async def scenario() -> tuple[str, float, int | None]:
        async with two_referees(fresh_database_url, isolated_redis_url) as servers:
            a, b = (f"127.0.0.1:{s.port}" for s in servers)
            names = [f"node-follow-{i}" for i in range(4)]
            tokens = [await register(a, name) for name in names]
            env = {k: v for k, v in os.environ.items() if k != "NODE_PATH"}
            node = await asyncio.create_subprocess_exec(
                *("node", str(app / "bot.js"), "--random", "--matches", "1"),
                *("--address", a, "--token", tokens[0]),
                cwd=app,
                env=env,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            others = [RandomBot(seed=i) for i in range(1, 4)]
            tasks = [
                asyncio.create_task(bot.run_async(b, token))
                for bot, token in zip(others, tokens[1:], strict=True)
            ]
            try:
                await until_present(servers[1], 4)
                before = relayed()
                match_id = await create_match(b, "hart", names, seed=5)
                await wait_finished(b, match_id)
                _, err = await asyncio.wait_for(node.communicate(), 60)
                during = relayed() - before
            finally:
                if node.returncode is None:
                    node.kill()
                    await node.wait()
                for bot in others:
                    bot.stop()
                await asyncio.gather(*tasks, return_exceptions=True)
            return err.decode(), during, node.returncode

    said, during, code = asyncio.run(scenario())
    assert code == 0, said
    assert "moving to 127.0.0.1:" in said, said
    assert during <= 4, f"{during:g} envelopes relayed during the match"


TYPED_BOT = """
const { Bot } = require('arena-bot');
class TypedBot extends Bot {
  constructor() { super(); this.form = 'PAYLOAD_FORM_TYPED'; }
  decide(turn) {
    const labels = [...turn.openspielLegal.keys()];
    console.log(JSON.stringify({
      view: turn.view, legal: turn.legal, labels, ids: [...turn.openspielLegal.values()],
      viewJson: turn.request.view_json, legalJson: turn.request.legal_json,
    }));
    return turn.legal[turn.legal.length - 1];
  }
  onMatchEnd(end) { console.log(`ended ${end.termination}`); this.stop(); }
}
new TypedBot().run(process.env.ARENA_ADDRESS, process.env.ARENA_BOT_TOKEN).catch((err) => {
  console.error(err.message);
  process.exit(1);
});
"""
"""A bot of the package that asks for typed views only and prints what each Turn holds."""


def test_a_typed_only_node_bot_reads_openspiels_view(app: Path, fresh_database_url: str) -> None:
    """Issue 31: with `form = 'PAYLOAD_FORM_TYPED'` the JSON texts are empty, and the package
    rebuilds the JSON view from `OpenSpielView` and lists OpenSpiel's action strings and ids."""
    pytest.importorskip("pyspiel")
    (app / "typed.js").write_text(TYPED_BOT)

    async def scenario() -> tuple[int, str, str, list[int]]:
        async with running_referee(fresh_database_url) as server:
            tokens = [await register(server.address, name) for name in ("typed", "py")]
            env = {k: v for k, v in os.environ.items() if k != "NODE_PATH"}
            env.update(ARENA_ADDRESS=server.address, ARENA_BOT_TOKEN=tokens[0])
            node = subprocess.Popen(
                ["node", "typed.js"], cwd=app, env=env, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True,
            )  # fmt: skip
            python = RandomBot(seed=3)
            task = asyncio.create_task(python.run_async(server.address, tokens[1]))
            try:
                await _until_connected(server.address, 2)
                match_id = await create_match(
                    server.address, "openspiel/leduc_poker", ["typed", "py"], seed=7
                )
                match = await wait_finished(server.address, match_id)
                # In a thread: the referee serves from this loop, and the bot still needs its
                # MatchEnd (and heartbeat answers) from it before it exits.
                out, err = await asyncio.to_thread(node.communicate, timeout=30)
            finally:
                python.stop()
                await task
                if node.returncode is None:
                    node.kill()
                    node.communicate()  # reaps it and closes its pipes
        return node.returncode, out, err, [s.strikes for s in match.seats]

    code, out, err, strikes = asyncio.run(scenario())
    assert code == 0 and strikes == [0, 0], err
    lines = out.splitlines()
    assert lines[-1] == "ended TERMINATION_COMPLETED", out
    turns = [json.loads(line) for line in lines[:-1]]
    assert turns, out
    for turn in turns:
        assert turn["viewJson"] == "" and turn["legalJson"] == []  # typed only on the wire
        view = turn["view"]
        assert view["seat"] == 0 and view["game"] == "leduc_poker(players=2)"
        assert (
            "[Observer: 0]" in view["information_state"]
            and "[Private: " in view["information_state"]
        )
        assert len(view["tensor"]) == 30 and "history" not in view  # hidden information
        assert turn["legal"] == turn["labels"] and set(turn["legal"]) <= {"Fold", "Call", "Raise"}
        assert turn["ids"] == [{"Fold": 0, "Call": 1, "Raise": 2}[a] for a in turn["legal"]]
