"""The match viewer in a real Chromium (Debian's, driven by Selenium) against a real web app on a
socket, real Postgres and the referees' step news on a real Redis.

Checked: a step's event list names the bots and says exactly the engine's public events of that
step (all three games); the score chart ends on the stored final scores; the speed control, play
from the end, the move list and `#step=` past the end work; a live page receives its steps by
Server-Sent Events with no repeating XHR, and when the match ends in the page the Live note goes
and the ranking shows. Screenshots go to the test's folder only.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import redis
import uvicorn
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select

import engines
from arena.referee import step_news
from arena.referee.clock import Clock
from arena.storage import Database
from arena.storage.identity import arena_identity
from arena.storage.rows import DecisionRow, SeatResult
from arena.tournament import rounds as tournaments
from arena.web import story
from arena.web.app import WebConfig, create_app
from engines.driver import MatchDriver
from tests.deploy.support import ensure_debian_package
from tests.web.seed import Stored, register, store_match
from tests.web.test_browser import CHROME_FLAGS, DESKTOP, console_errors, until

pytestmark = pytest.mark.integration

NAMES = ["ada", "bea", "cyd", "dex"]
BATCHES = itertools.count()


@dataclass(frozen=True)
class Site:
    """The web app on a socket and the matches its database holds."""

    url: str
    database_url: str
    redis_url: str
    finished: dict[str, Stored]


def _binary(command: str, package: str) -> str:
    path = ensure_debian_package(command, package)
    if path is None:
        pytest.skip(f"`{command}` is missing and apt-get cannot install {package}")
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    """Headless Chromium with its console and network logs readable."""
    options = webdriver.ChromeOptions()
    options.binary_location = _binary("chromium", "chromium")
    for flag in CHROME_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--window-size={DESKTOP[0]},{DESKTOP[1]}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    service = Service(_binary("chromedriver", "chromium-driver"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def site(migrated_database_url: str, redis_server_url: str) -> Iterator[Site]:
    """Finished matches of every game, and the web app serving them from a thread."""
    redis_for_test = redis_server_url

    async def seed() -> dict[str, Stored]:
        async with await Database.open(migrated_database_url) as db:
            bots = list((await register(db, NAMES)).items())
            timeout = ("timeout", "no answer to decision 3 within 1.000s")
            return {
                "hart": await store_match(db, "hart", bots, 21, strikes={(3, 1): timeout}),
                "crossing": await store_match(db, "crossing", bots[:3], 22),
                "loyang": await store_match(db, "loyang", bots[:2], 23),
            }

    finished = asyncio.run(seed())
    config = WebConfig(
        database_url=migrated_database_url,
        spectator_delay=timedelta(milliseconds=200),
        redis_url=redis_for_test,
        live_poll=timedelta(seconds=1),
    )
    server = uvicorn.Server(uvicorn.Config(create_app(config), port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    until(lambda: server.started, 30)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield Site(f"http://127.0.0.1:{port}", migrated_database_url, redis_for_test, finished)
    finally:
        server.should_exit = True
        thread.join(10)


def open_viewer(browser: WebDriver, site: Site, match_id: int, step: int | None = None) -> None:
    browser.get(f"{site.url}/matches/{match_id}" + (f"#step={step}" if step is not None else ""))
    until(lambda: browser.find_elements(By.CSS_SELECTOR, "#moves li"), 20)


def counter(browser: WebDriver) -> tuple[int, int]:
    text = browser.find_element(By.ID, "counter").text
    at, total = text.removeprefix("step ").split("/")
    return int(at), int(total)


def public_views(site: Site, match_id: int) -> tuple[str, list[dict[str, Any]], list[str]]:
    """The engine's public view after every step of a stored match, and the seats' bots."""

    async def read() -> tuple[Any, Any]:
        async with await Database.open(site.database_url) as db:
            return await db.match(match_id), await db.record(match_id)

    row, record = asyncio.run(read())
    rules = engines.get(row.game)
    driver: MatchDriver[Any, Any] = MatchDriver(rules, record.seats, record.options, record.seed)
    views = [driver.view(None)]
    for joint in record.moves:
        driver.play({s: rules.parse_action(s, a) for s, a in joint.items()})
        views.append(driver.view(None))
    return row.game, views, [s.bot_name for s in row.seating]


@pytest.mark.parametrize("game", ["hart", "crossing", "loyang"])
def test_the_event_list_names_the_bots_and_says_the_engines_events(
    browser: WebDriver, site: Site, game: str
) -> None:
    match_id = site.finished[game].match_id
    _, views, names = public_views(site, match_id)
    eventful = [i for i, v in enumerate(views) if len(v.get("events") or []) >= 2]
    picked = [eventful[0], eventful[len(eventful) // 2], len(views) - 1]
    open_viewer(browser, site, match_id, picked[0])
    for step in picked:
        browser.find_element(By.CSS_SELECTOR, f"#moves li[data-step='{step}'] button").click()
        until(lambda s=step: counter(browser)[0] == s, 10)
        shown = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#events li")]
        expected = story.sentences(game, views[step], names)
        assert len(expected) == len(views[step]["events"]), "one sentence per public event"
        assert shown == expected, f"step {step} of {game}"
        assert any(name in line for line in shown for name in names), "the bots are named"
    rows = browser.find_elements(By.CSS_SELECTOR, "#seat-info tbody tr")
    assert [r.find_element(By.CSS_SELECTOR, "td").text for r in rows] == names
    assert not console_errors(browser)


def test_the_score_chart_ends_on_the_final_scores(browser: WebDriver, site: Site) -> None:
    for game, stored in site.finished.items():
        open_viewer(browser, site, stored.match_id)
        until(lambda: browser.find_elements(By.CSS_SELECTOR, "#chart polyline.series"), 10)
        lines = browser.find_elements(By.CSS_SELECTOR, "#chart polyline.series")
        last = {
            int(line.get_attribute("data-seat")): float(line.get_attribute("data-last"))
            for line in lines
        }
        seats = json.loads(
            browser.execute_script(
                f"return fetch('/api/matches/{stored.match_id}').then(r => r.text())"
            )
        )["seats"]
        assert last == {s["seat"]: float(s["score"]) for s in seats}, game
        assert browser.find_element(By.ID, "chart-marker").get_attribute("data-step") == str(
            counter(browser)[0]
        )


def test_speed_play_from_the_end_move_list_and_a_step_past_the_end(
    browser: WebDriver, site: Site
) -> None:
    match_id = site.finished["crossing"].match_id
    open_viewer(browser, site, match_id, 99_999)
    at, total = counter(browser)
    assert at == total > 50, "#step past the end opens the last step"
    assert browser.find_element(By.ID, "final").is_displayed()

    def advance(speed: str) -> int:
        Select(browser.find_element(By.ID, "speed")).select_by_value(speed)
        browser.find_element(By.ID, "first").click()
        browser.find_element(By.ID, "play").click()
        time.sleep(1.0)
        browser.find_element(By.ID, "play").click()
        return counter(browser)[0]

    slow, fast = advance("1"), advance("32")
    assert fast > 3 * max(slow, 1), f"32x advanced {fast} steps, 1x {slow}"
    browser.find_element(By.ID, "last").click()
    browser.find_element(By.ID, "play").click()
    until(lambda: counter(browser)[0] < total, 5, lambda: "play at the end did nothing")
    browser.find_element(By.ID, "play").click()
    browser.find_element(By.CSS_SELECTOR, "#moves li[data-step='7'] button").click()
    assert counter(browser)[0] == 7
    current = browser.find_element(By.CSS_SELECTOR, "#moves li.current")
    assert current.get_attribute("data-step") == "7"
    until(lambda: "#step=7" in browser.current_url, 5, lambda: browser.current_url)
    assert "speed" in browser.find_element(By.CSS_SELECTOR, ".shortcuts").text
    record = browser.find_element(By.ID, "record")
    assert record.is_displayed() and record.get_attribute("href").endswith(f"/{match_id}/replay")


def requests_seen(browser: WebDriver) -> list[tuple[str, str]]:
    """(resource type, url) of every request the page made since the last call."""
    seen = []
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            params = message["params"]
            seen.append((params.get("type", ""), params["request"]["url"]))
    return seen


def test_a_live_page_receives_steps_without_polling(
    browser: WebDriver, site: Site, tmp_path: Path
) -> None:
    batch = next(BATCHES)

    async def create() -> tuple[int, list[DecisionRow], Any, str]:
        async with await Database.open(site.database_url) as db:
            ids = await register(db, [f"live-{n}-{batch}" for n in range(3)])
            stored = await store_match(db, "hart", list(ids.items()), 31, keep=0)
            rules = engines.get("hart")
            row = await db.match(stored.match_id)
            assert row is not None
            driver: MatchDriver[Any, Any] = MatchDriver(rules, 3, dict(row.options), 31)
            rows, number = [], 0
            while (decision := driver.decision) is not None:
                for seat in sorted(decision.seats):
                    driver.answer(seat, number, driver.space(seat).default())
                driver.advance()
                joint = dict(driver.moves[-1])
                rows.append(DecisionRow(row.id, number, decision.label, joint, {}))
                number += 1
            return row.id, rows, driver.rules.outcome(driver.state), await arena_identity(db.pool)

    match_id, rows, outcome, namespace = asyncio.run(create())
    news = redis.Redis.from_url(site.redis_url)

    async def log(numbers: range, end: bool = False) -> None:
        async with await Database.open(site.database_url) as db:
            for n in numbers:
                await db.record_decision(rows[n])
                news.publish(step_news.channel(namespace, match_id), step_news.encode(match_id, n))
                await asyncio.sleep(0.02)
            if end:
                results = [SeatResult(outcome.ranks[i], outcome.scores[i], 0) for i in range(3)]
                await db.finish_match(match_id, outcome.termination, results)
                news.publish(
                    step_news.channel(namespace, match_id),
                    step_news.encode(match_id, len(rows) - 1, True),
                )

    try:
        asyncio.run(log(range(5)))
        browser.get(f"{site.url}/matches/{match_id}")
        until(lambda: counter(browser)[0] >= 5, 20)
        assert browser.find_element(By.ID, "live-note").is_displayed()
        requests_seen(browser)  # what the page load asked for
        asyncio.run(log(range(5, 40)))
        until(lambda: counter(browser)[0] == 40, 20, lambda: str(counter(browser)))
        time.sleep(2.5)  # a polling page would have asked again by now
        later = [(kind, url) for kind, url in requests_seen(browser) if "/api/" in url]
        assert later == [], f"the live page asked again: {later}"
        asyncio.run(log(range(40, len(rows)), end=True))
        until(lambda: browser.find_element(By.ID, "m-status").text == "finished", 30)
        assert not browser.find_elements(By.ID, "live-note"), "the Live note goes at the end"
        assert counter(browser) == (len(rows), len(rows))
        until(lambda: browser.find_element(By.ID, "final").is_displayed(), 5)
        ranking = browser.find_elements(By.CSS_SELECTOR, "#final ol.ranking li")
        assert len(ranking) == 3 and all("(seat" in li.text for li in ranking)
        browser.save_screenshot(str(tmp_path / "live-ended.png"))
        assert not console_errors(browser)
    finally:
        news.close()


def test_a_tournament_page_is_pushed_its_changes_without_polling(
    browser: WebDriver, site: Site
) -> None:
    batch = next(BATCHES)

    async def create() -> int:
        async with await Database.open(site.database_url) as db:
            names = [f"cup-{n}-{batch}" for n in range(4)]
            await register(db, names)
            return await tournaments.create_tournament(
                db, name="pushed cup", game="hart", bot_names=names, table_size=4, rounds=1,
                clock=Clock(),
            )  # fmt: skip

    async def start(tid: int) -> None:
        async with await Database.open(site.database_url) as db:
            await tournaments.start(db, tid)

    tid = asyncio.run(create())
    browser.get(f"{site.url}/tournaments/{tid}")
    until(lambda: browser.find_element(By.ID, "t-updated").text.startswith("updated"), 20)
    before = browser.find_element(By.ID, "t-status").text
    requests_seen(browser)
    time.sleep(2.5)  # a polling page would have asked again by now
    asyncio.run(start(tid))
    status = lambda: browser.find_element(By.ID, "t-status").text  # noqa: E731
    until(lambda: status() != before, 20, status)
    assert status() == "running"
    later = [(kind, url) for kind, url in requests_seen(browser) if "/api/" in url]
    assert later == [], f"the tournament page asked: {later}"
    assert not console_errors(browser)


def test_the_home_page_live_list_follows_without_polling(browser: WebDriver, site: Site) -> None:
    batch = next(BATCHES)
    browser.get(f"{site.url}/")
    until(lambda: browser.find_elements(By.ID, "live"), 20)
    time.sleep(1)  # the stream is open
    requests_seen(browser)

    async def start_one() -> int:
        async with await Database.open(site.database_url) as db:
            ids = await register(db, [f"home-{n}-{batch}" for n in range(3)])
            return (await store_match(db, "hart", list(ids.items()), 41, keep=0)).match_id

    match_id = asyncio.run(start_one())
    live = lambda: browser.find_element(By.ID, "live").text  # noqa: E731
    until(lambda: f"#{match_id}" in live(), 20, live)
    assert f"home-0-{batch}" in live()
    later = [(kind, url) for kind, url in requests_seen(browser) if "/api/" in url]
    assert later == [], f"the home page asked: {later}"
    assert not console_errors(browser)


def test_an_openspiel_match_shows_its_grid_and_the_observation(
    browser: WebDriver, site: Site
) -> None:
    """Connect four in the viewer: an SVG grid with one disc per move so far, OpenSpiel's
    observation text under it, and the final state and returns at the last step."""
    pytest.importorskip("pyspiel")

    async def seed() -> Stored:
        async with await Database.open(site.database_url) as db:
            bots = list((await register(db, ["os-ann", "os-ben"])).items())
            return await store_match(db, "openspiel/connect_four", bots, 31)

    match_id = asyncio.run(seed()).match_id
    _, views, _ = public_views(site, match_id)
    middle = len(views) // 2
    open_viewer(browser, site, match_id, middle)
    until(lambda: counter(browser)[0] == middle, 10)
    board = browser.find_element(By.CSS_SELECTOR, "#board .openspiel")
    assert len(board.find_elements(By.CSS_SELECTOR, "svg.grid circle.piece")) == middle
    assert board.find_element(By.CSS_SELECTOR, "pre.observation").text == (
        views[middle]["observation"].strip()
    )
    last = len(views) - 1
    browser.find_element(By.CSS_SELECTOR, f"#moves li[data-step='{last}'] button").click()
    until(lambda: counter(browser)[0] == last, 10)
    board = browser.find_element(By.CSS_SELECTOR, "#board .openspiel")
    assert "final state" in board.text
    assert len(board.find_elements(By.CSS_SELECTOR, "ol.returns li")) == 2
    assert not console_errors(browser)
