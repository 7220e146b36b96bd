"""The pages in a real Chromium (Debian's, driven by Selenium) against a real `arena up`.

One story, to keep it short: `arena up` with its web server, four reference bots and a
three-round Swiss of Hart, plus a slow Loyang match held open by two slow bots. Checked: every
page loads with no console error, the leaderboard shows the database's ratings, the tournament's
standings change without a reload, the replay viewer steps and ends on the stored ranking, and
the running match shows no seat's hidden cards. Screenshots at desktop and phone widths go to
the test's folder; `make screenshots` (which sets SCREENSHOTS_FOR_README) also copies two of
them to docs/screenshots/ for the README. A plain test run never writes tracked files.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import psycopg
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

import engines
from arena.ops.ports import free_port
from arena.v1 import arena_pb2, arena_pb2_grpc, common_pb2
from engines.replay import Record, replay
from tests.deploy.support import (
    REPO,
    ensure_debian_package,
    kill_processes_mentioning,
    start_group,
    stop_group,
)

pytestmark = pytest.mark.integration

ARENA = [sys.executable, "-m", "arena.cli.main"]
DESKTOP = (1280, 900)
PHONE = (375, 812)
CHROME_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
README_SHOTS = {"tournament-desktop.png", "match-story-desktop.png"}
STORY = (DESKTOP[0], 1350)
"""The README's viewer shot: tall enough for the step's story, the score chart and the moves."""


def _binary(command: str, package: str) -> str:
    path = ensure_debian_package(command, package)
    if path is None:
        pytest.skip(f"`{command}` is missing and apt-get cannot install {package}")
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    """Headless Chromium with its console log readable."""
    chromium = _binary("chromium", "chromium")
    driver_path = _binary("chromedriver", "chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in CHROME_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--window-size={DESKTOP[0]},{DESKTOP[1]}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


class Arena:
    """A running `arena up` and what the test needs to talk to it."""

    def __init__(self, folder: Path, database_url: str) -> None:
        self.folder = folder
        self.database_url = database_url
        self.port = free_port()
        self.web_port = free_port()
        self.admin = secrets.token_hex(16)
        self.env = {
            **os.environ,
            "PYTHONPATH": str(REPO),
            "ARENA_DATABASE_URL": database_url,
            "ARENA_ADMIN_TOKEN": self.admin,
            "ARENA_DATA_DIR": str(folder / "data"),
        }
        self.env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        self.env.pop("ARENA_REDIS_URL", None)  # `arena up` embeds a Redis of its own
        self.processes: list[subprocess.Popen[bytes]] = []

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    def start(self) -> None:
        log = self.folder / "up.log"
        up = [
            *ARENA,
            "up",
            "--data-dir",
            str(self.folder / "data"),
            "--port",
            str(self.port),
            "--web-port",
            str(self.web_port),
            "--spectator-delay",
            "1",
            "--concurrency",
            "2",
        ]
        for flag in ("--referee", "--worker", "--beat", "--web"):
            up += [f"{flag}-metrics-port", str(free_port())]
        self.processes.append(start_group(up, log, self.env))
        until(lambda: f"web pages at {self.url}/" in log.read_text(), 90, lambda: log.read_text())

    def api(self) -> tuple[grpc.Channel, arena_pb2_grpc.ArenaServiceStub]:
        channel = grpc.insecure_channel(self.address)
        return channel, arena_pb2_grpc.ArenaServiceStub(channel)

    def bot(self, name: str, command: list[str]) -> None:
        """Register `name` and start its process (`command` gets the token appended)."""
        channel, api = self.api()
        with channel:
            token = api.RegisterBot(arena_pb2.RegisterBotRequest(name=name)).token
        log = self.folder / f"bot-{name}.log"
        self.processes.append(start_group([*command, token], log, self.env))

    def wait_bots(self, count: int) -> None:
        channel, api = self.api()
        with channel:
            until(lambda: len(api.ListBots(arena_pb2.ListBotsRequest()).bots) >= count, 60)

    def admin_call(self, method: str, request: Any) -> Any:
        channel, api = self.api()
        with channel:
            call = getattr(api, method)
            return call(request, metadata=(("authorization", f"Bearer {self.admin}"),))

    def json(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=10) as reply:
            return json.load(reply)

    def stop(self) -> None:
        for process in reversed(self.processes):
            stop_group(process)


def until(check: Callable[[], Any], timeout: float, explain: Callable[[], str] = str) -> Any:
    """Poll `check` until it is truthy; fail with `explain()` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout}s: {explain()[-3000:]}")


@pytest.fixture
def arena(fresh_database_url: str, tmp_path: Path) -> Iterator[Arena]:
    """`arena up` on a fresh database, with an embedded Redis in its data folder."""
    folder = tmp_path / "arena"
    folder.mkdir()
    folder.chmod(0o755)
    stack = Arena(folder, fresh_database_url)
    try:
        stack.start()
        yield stack
    finally:
        stack.stop()
        kill_processes_mentioning(str(folder))


def console_errors(driver: WebDriver) -> list[str]:
    """Severe console entries since the last call."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def visit(driver: WebDriver, url: str, shots: Path, name: str, settle: str = "main") -> None:
    """Load a page, check its console, and screenshot it at desktop and phone widths."""
    driver.set_window_size(*DESKTOP)
    driver.get(url)
    WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, settle))
    driver.save_screenshot(str(shots / f"{name}-desktop.png"))
    driver.set_window_size(*PHONE)
    width = driver.execute_script("return document.documentElement.scrollWidth")
    assert width <= PHONE[0] + 2, f"{name} is {width} px wide on a 375 px phone"
    driver.save_screenshot(str(shots / f"{name}-phone.png"))
    driver.set_window_size(*DESKTOP)
    errors = console_errors(driver)
    assert not errors, f"console errors on {url}: {errors}"


def hidden_cards(database_url: str, match_id: int, steps: int) -> set[str]:
    """Card ids some seat held in the first `steps` positions that no public view showed."""
    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            "SELECT seed, options, seats FROM matches WHERE id = %s", (match_id,)
        ).fetchone()
        assert row is not None
        seed, options, seats = row
        moves = [
            {int(k): v for k, v in joint.items()}
            for (joint,) in conn.execute(
                "SELECT joint FROM decisions WHERE match_id = %s ORDER BY number LIMIT %s",
                (match_id, steps - 1),
            )
        ]
    rules = engines.get("loyang")
    held: set[str] = set()
    public = ""
    for k in range(len(moves) + 1):
        state = replay(
            rules, Record("loyang", rules.version, options, seats, seed, tuple(moves[:k]))
        )
        public += json.dumps(rules.dump_observation(rules.observe(state, None)))
        for seat in range(seats):
            held |= {c["id"] for c in rules.dump_observation(rules.observe(state, seat))["hand"]}
    return {card for card in held if card not in public}


def test_the_pages_in_a_browser(arena: Arena, browser: WebDriver, tmp_path: Path) -> None:
    shots = tmp_path / "screenshots"
    shots.mkdir()
    names = ["ada", "bea", "cyd", "dex"]
    for name in names:
        arena.bot(
            name,
            [
                *ARENA,
                "bot",
                "run",
                "--strategy",
                "heuristic",
                "--address",
                arena.address,
                "--token",
            ],
        )
    for name in ("slow-1", "slow-2"):
        arena.bot(name, [sys.executable, "-m", "tests.web.slowbot", arena.address, "0.15"])
    arena.wait_bots(6)

    # A Loyang match kept running by two slow bots.
    running = arena.admin_call(
        "CreateMatch",
        arena_pb2.CreateMatchRequest(game="loyang", bots=["slow-1", "slow-2"], seed=7),
    ).match_id

    # The running match: only public information, behind the spectator delay.
    browser.get(f"{arena.url}/matches/{running}")

    def capture() -> tuple[str, str, set[str]] | None:
        counter = browser.find_element(By.ID, "counter").text
        found = re.search(r"step (\d+)/(\d+)$", counter)
        if not found:
            return None
        source = browser.page_source
        steps = arena.json(f"/api/matches/{running}/steps")
        assert steps["match"]["status"] == "running" and not steps["complete"]
        shown = max(int(found[2]) + 1, steps["total"])
        secret = hidden_cards(arena.database_url, running, shown)
        return (source, json.dumps(steps), secret) if secret else None

    source, api_text, secret = until(capture, 30, lambda: "no step with cards in hand")
    leaked = {card for card in secret if re.search(rf"\b{card}\b", source + api_text)}
    assert not leaked, f"hidden cards on the running match's page: {leaked}"
    assert not console_errors(browser)

    # A three-round Swiss that starts once its page is open.
    request = arena_pb2.CreateTournamentRequest(
        name="browser cup",
        game="hart",
        bots=names,
        table_size=4,
        rounds=3,
        clock=common_pb2.Clock(),
        seed=5,
    )
    request.starts_at.FromDatetime(datetime.now(UTC) + timedelta(seconds=3))
    tournament = arena.admin_call("CreateTournament", request).tournament_id

    browser.get(f"{arena.url}/tournaments/{tournament}")
    browser.execute_script("window.notReloaded = true")
    rows = lambda: browser.find_element(By.CSS_SELECTOR, "#standings tbody").text  # noqa: E731
    before = rows()
    until(lambda: rows() != before, 60, lambda: f"standings stayed {before!r}")
    assert browser.execute_script("return window.notReloaded === true"), "the page reloaded"
    until(lambda: browser.find_element(By.ID, "t-status").text == "finished", 90, rows)
    assert browser.execute_script("return window.notReloaded === true"), "the page reloaded"
    assert not console_errors(browser)

    visit(browser, f"{arena.url}/matches/{running}", shots, "live-match", "#board .board")

    # The replay viewer on a finished table of the tournament.
    info = arena.json(f"/api/tournaments/{tournament}")
    match_id = info["rounds_played"][-1]["tables"][0]["match_id"]
    visit(browser, f"{arena.url}/matches/{match_id}", shots, "match", "#board .board")
    until(lambda: browser.find_element(By.ID, "final").is_displayed(), 20)
    counter = lambda: browser.find_element(By.ID, "counter").text  # noqa: E731
    board = lambda: browser.find_element(By.ID, "board").get_attribute("innerHTML")  # noqa: E731
    browser.find_element(By.ID, "first").click()
    assert counter().startswith("step 0/")
    first = board()
    browser.find_element(By.ID, "next").click()
    assert counter().startswith("step 1/") and board() != first
    browser.find_element(By.ID, "next").click()
    second = board()
    browser.find_element(By.ID, "prev").click()
    assert counter().startswith("step 1/") and board() != second
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    assert counter().startswith("step 2/")
    browser.find_element(By.ID, "last").click()
    total = int(counter().split("/")[1])
    assert counter() == f"step {total}/{total}"
    final = browser.find_element(By.ID, "final")
    assert final.is_displayed()
    stored = arena.json(f"/api/matches/{match_id}")
    expected = sorted((s["rank"], s["seat"], s["bot"]) for s in stored["seats"])
    shown_ranking = [li.text for li in final.find_elements(By.CSS_SELECTOR, "ol.ranking li")]
    assert [line.split(" (seat")[0] for line in shown_ranking] == [bot for _, _, bot in expected]
    numbers = [li.get_attribute("value") for li in final.find_elements(By.CSS_SELECTOR, "li")]
    assert numbers == [str(rank) for rank, _, _ in expected], "tied seats share their number"
    browser.save_screenshot(str(shots / "match-final-desktop.png"))

    # A step in the middle, told as a story: its events, the score chart, the move list.
    middle = total // 2
    browser.get("about:blank")
    browser.set_window_size(*STORY)
    browser.get(f"{arena.url}/matches/{match_id}#step={middle}")
    until(lambda: counter().startswith(f"step {middle}/"), 20, counter)
    until(lambda: browser.find_elements(By.CSS_SELECTOR, "#events li"), 20)
    assert browser.find_elements(By.CSS_SELECTOR, "#chart *"), "the score chart is drawn"
    browser.save_screenshot(str(shots / "match-story-desktop.png"))
    browser.set_window_size(*DESKTOP)
    assert not console_errors(browser)

    # The leaderboard lists the ratings stored in Postgres.
    with psycopg.connect(arena.database_url) as conn:
        ratings = conn.execute(
            "SELECT b.name, r.rating FROM ratings r JOIN bots b ON b.id = r.bot_id "
            "WHERE r.game = 'hart' ORDER BY r.rating DESC, r.games DESC, b.name"
        ).fetchall()
    visit(browser, f"{arena.url}/leaderboard/hart", shots, "leaderboard", "table.leaderboard")
    listed = [
        (row.get_attribute("data-bot"), row.find_element(By.CSS_SELECTOR, ".rating").text)
        for row in browser.find_elements(By.CSS_SELECTOR, "table.leaderboard tbody tr")
    ]
    assert listed == [(name, f"{rating:.1f}") for name, rating in ratings]
    assert len(listed) == 4

    # Every other page, with no console error.
    visit(browser, f"{arena.url}/", shots, "home", "section.cards")
    visit(browser, f"{arena.url}/tournaments/{tournament}", shots, "tournament", "#standings")
    visit(browser, f"{arena.url}/bots/ada", shots, "bot", "section.game-stats")
    visit(browser, f"{arena.url}/leaderboard/loyang", shots, "leaderboard-loyang")
    visit(browser, f"{arena.url}/api", shots, "api")
    done = {p.name for p in shots.iterdir()}
    for page in ("home", "leaderboard", "bot", "tournament", "match", "live-match"):
        assert {f"{page}-desktop.png", f"{page}-phone.png"} <= done
    if os.environ.get("SCREENSHOTS_FOR_README"):
        docs = REPO / "docs" / "screenshots"
        docs.mkdir(exist_ok=True)
        for name in README_SHOTS:
            shutil.copy(shots / name, docs / name)
