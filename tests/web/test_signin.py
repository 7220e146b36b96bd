"""Web sign-in over a real database: session cookie, CSRF, My bots, the audit page, rate limit.

Every signed-in route is tried as a visitor, another author, the owner and an admin.
"""

from __future__ import annotations

import asyncio
import re
import tempfile
from datetime import timedelta
from pathlib import Path

import psycopg
import pytest
from psycopg.types.json import Jsonb
from starlette.testclient import TestClient

from arena.hosting.archive import Packed, pack
from arena.referee.auth import token_hash
from arena.referee.keys import hash_password
from arena.referee.limits import Rate
from arena.storage import Database
from arena.storage.accounts import Accounts, Role
from arena.storage.hosted import Hosted
from arena.web.app import WebConfig, create_app
from tests.web.seed import store_match

pytestmark = pytest.mark.integration

PASSWORD = "a web password"


async def _seed(url: str) -> None:
    db = await Database.open(url)
    try:
        await db.migrate()
        accounts = Accounts(db.pool)
        ada = await accounts.create("ada", Role.AUTHOR, hash_password(PASSWORD))
        eve = await accounts.create("eve", Role.AUTHOR, hash_password(PASSWORD))
        await accounts.create("boss", Role.ADMIN, hash_password(PASSWORD))
        a = await db.create_bot("adabot", token_hash("arena_old"), ada.id)
        e = await db.create_bot("evebot", token_hash("arena_eve"), eve.id)
        await store_match(db, "crossing", [("adabot", a), ("evebot", e)], seed=11)
    finally:
        await db.close()


@pytest.fixture
def url(fresh_database_url: str) -> str:
    asyncio.run(_seed(fresh_database_url))
    return fresh_database_url


def _client(url: str, base: str = "http://testserver", burst: int = 10) -> TestClient:
    limit = Rate(burst=burst, every=timedelta(minutes=5))
    config = WebConfig(database_url=url, failed_signins=limit)
    return TestClient(create_app(config), base_url=base)


def _signin(client: TestClient, name: str) -> str:
    reply = client.post(
        "/signin", data={"name": name, "password": PASSWORD}, follow_redirects=False
    )
    assert reply.status_code == 303, reply.text
    page = client.get("/me").text
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    assert found is not None, page
    return found.group(1)


def test_owner_rotates_from_my_bots_and_nobody_else_can(url: str) -> None:
    with _client(url) as visitor:
        assert visitor.get("/me", follow_redirects=False).headers["location"] == "/signin"
        assert visitor.get("/admin/audit", follow_redirects=False).status_code == 303
        assert (
            visitor.post("/me", data={"bot": "adabot"}, follow_redirects=False).status_code == 303
        )
        wrong = visitor.post("/signin", data={"name": "ada", "password": "nope"})
        assert wrong.status_code == 401 and "wrong name or password" in wrong.text
    with _client(url) as ada:
        reply = ada.post(
            "/signin", data={"name": "ada", "password": PASSWORD}, follow_redirects=False
        )
        cookie = reply.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie and "secure" not in cookie
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', ada.get("/me").text)
        assert csrf is not None
        page = ada.get("/me").text
        assert "adabot" in page and "evebot" not in page and "v1" in page
        assert ada.cookies["arena_session"] not in page, "the session key is never shown"
        forged = ada.post("/me", data={"bot": "adabot"})
        assert forged.status_code == 403 and "CSRF" in forged.text
        theirs = ada.post("/me", data={"bot": "evebot", "csrf": csrf.group(1)})
        assert theirs.status_code == 403
        assert ada.get("/admin/audit").status_code == 403
        rotated = ada.post("/me", data={"bot": "adabot", "csrf": csrf.group(1)})
        token = re.search(r"<code>(arena_[^<]+)</code>", rotated.text)
        assert rotated.status_code == 200 and token is not None
        with psycopg.connect(url) as conn:
            (stored,) = conn.execute("SELECT token_hash FROM bots WHERE name = 'adabot'").fetchone()
        assert bytes(stored) == token_hash(token.group(1))
        assert (
            ada.post("/signout", data={"csrf": csrf.group(1)}, follow_redirects=False).status_code
            == 303
        )
        assert ada.get("/me", follow_redirects=False).status_code == 303, "the session is revoked"
    with _client(url) as boss:
        _signin(boss, "boss")
        audit = boss.get("/admin/audit")
        assert (
            audit.status_code == 200
            and "RotateBotToken" in audit.text
            and "bot:adabot" in audit.text
        )
        assert PASSWORD not in audit.text


def test_sign_in_is_rate_limited_and_secure_over_https(url: str) -> None:
    with _client(url, "https://testserver", burst=3) as client:
        codes = [
            client.post("/signin", data={"name": "ada", "password": f"guess {i}"}).status_code
            for i in range(5)
        ]
        assert codes == [401] * 3 + [429] * 2
        right = client.post("/signin", data={"name": "ada", "password": PASSWORD})
        assert right.status_code == 429, "even the right password waits now"
    with _client(url, "https://testserver") as client:
        reply = client.post(
            "/signin", data={"name": "eve", "password": PASSWORD}, follow_redirects=False
        )
        assert "secure" in reply.headers["set-cookie"].lower()


def test_the_private_replay_shows_the_owner_its_seat_and_nobody_else(url: str) -> None:
    with psycopg.connect(url) as conn:
        (match_id,) = conn.execute("SELECT max(id) FROM matches").fetchone()
        # adabot's runner saved a line it wrote before its first decision (hosted bots only).
        conn.execute(
            "INSERT INTO match_output (match_id, bot_id, lines) SELECT %s, id, %s FROM bots "
            "WHERE name = 'adabot'",
            (match_id, Jsonb([[0.0, "<script>alert(1)</script>"]])),
        )
    path = f"/me/bots/adabot/matches/{match_id}"
    with _client(url) as visitor:
        assert visitor.get(path, follow_redirects=False).headers["location"] == "/signin"
        public = visitor.get(f"/matches/{match_id}").text
    with _client(url) as eve:
        _signin(eve, "eve")
        assert eve.get(path).status_code == 403, "another author never sees it"
        other = eve.get(f"/me/bots/evebot/matches/{match_id}")
        assert other.status_code == 200 and 'class="output"' not in other.text
    with _client(url) as ada:
        _signin(ada, "ada")
        assert f"/me/bots/adabot/matches/{match_id}" in ada.get("/me").text
        page = ada.get(path)
        assert page.status_code == 200, page.text
        rows = re.findall(r'<pre class="view">', page.text)
        assert rows, "every decision of the seat shows the view it was sent"
        assert 'data-seat="0"' in page.text and 'data-seat="1"' not in page.text
        assert page.text.count('<pre class="output">') == 1, "its output, at its first decision"
        assert (
            "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
            and "<script>alert" not in page.text
        )
        assert ada.get(f"/me/bots/adabot/matches/{match_id + 1000}").status_code == 404
    assert 'class="view"' not in public, "the public viewer shows no seat's view"


PUBLIC_PAGES = {
    "/",
    "/games",
    "/leaderboard/{game}",
    "/leaderboard/openspiel/{short}",
    "/bots/{name}",
    "/tournaments/{tournament_id}",
    "/matches/{match_id}",
    "/api",
    "/healthz",
    "/signin",
    "/static/{file}",
    "/versiontests",
    "/versiontests/{test_id}",
}
"""Routes that reveal nothing private and change nothing (the /api twins of the pages too)."""

VISITOR, AUTHOR, OTHER, ADMIN = "visitor", "ada (owner)", "eve (other author)", "boss (admin)"
PRIVATE: dict[tuple[str, str], dict[str, int]] = {
    ("GET", "/me"): {VISITOR: 303, OTHER: 200, AUTHOR: 200, ADMIN: 200},
    ("POST", "/me"): {VISITOR: 303, OTHER: 403, AUTHOR: 200, ADMIN: 200},
    ("GET", "/me/bots/{bot}/matches/{match_id}"): {
        VISITOR: 303,
        OTHER: 403,
        AUTHOR: 200,
        ADMIN: 200,
    },
    ("GET", "/admin/audit"): {VISITOR: 303, OTHER: 403, AUTHOR: 403, ADMIN: 200},
    ("POST", "/signout"): {VISITOR: 303, OTHER: 303, AUTHOR: 303, ADMIN: 303},
}
"""Every private web route: the status each kind of caller gets (303 to /signin = refused)."""


def test_every_web_route_is_public_or_in_the_private_matrix(url: str) -> None:
    app = create_app(WebConfig(database_url=url))
    routes = {(method, r.path) for r in app.routes if hasattr(r, "methods") for method in r.methods}
    pages = {(m, p) for m, p in routes if m in ("GET", "POST") and not p.startswith("/api/")}
    unlisted = {
        (m, p)
        for m, p in pages
        if (m, p) not in PRIVATE
        and not (m == "GET" and p in PUBLIC_PAGES)
        and not (m == "POST" and p == "/signin")
    }
    assert not unlisted, f"web routes without a permission row: {sorted(unlisted)}"
    with psycopg.connect(url) as conn:
        (match_id,) = conn.execute("SELECT max(id) FROM matches").fetchone()
    names = {AUTHOR: "ada", OTHER: "eve", ADMIN: "boss"}
    for who in (VISITOR, OTHER, ADMIN, AUTHOR):
        with _client(url) as client:
            csrf = _signin(client, names[who]) if who in names else ""
            for (method, path), expected in PRIVATE.items():
                target = path.replace("{bot}", "adabot").replace("{match_id}", str(match_id))
                if method == "GET":
                    reply = client.get(target, follow_redirects=False)
                else:
                    form = {"bot": "adabot", "csrf": csrf}
                    reply = client.post(target, data=form, follow_redirects=False)
                assert reply.status_code == expected[who], (who, method, path, reply.text[:200])
                if path == "/signout" and who in names:
                    csrf = _signin(client, names[who])


def test_my_bots_shows_versions_the_active_one_and_hosted_state(url: str) -> None:
    async def host() -> None:
        db = await Database.open(url)
        try:
            packed = pack_bytes()
            async with db.pool.connection("bot ids") as conn:
                row = await (
                    await conn.execute("SELECT id FROM bots WHERE name = 'adabot'")
                ).fetchone()
            assert row is not None
            hosted = Hosted(db.pool)
            await hosted.add_part(row[0], packed.sha256, 0, packed.content, len(packed.content))
            await hosted.create_version(row[0], "h2", "", packed.sha256, "python3 bot.py", len)
        finally:
            await db.close()

    asyncio.run(host())
    with _client(url) as ada:
        _signin(ada, "ada")
        page = ada.get("/me").text
        assert "not running: it runs while a tournament or ladder needs it" in page
        rows = re.findall(r'<tr class="version( active)?"><td>([^<]+)', page)
        assert rows == [(" active", "h2 "), ("", "v1")], rows
        assert "hosted: <code>python3 bot.py</code>" in page and "its author" in page
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("UPDATE bots SET always_on = true WHERE name = 'adabot'")
            needed = ada.get("/me").text
            conn.execute(
                "INSERT INTO hosted_leases (bot_id, runner, lease_expires) SELECT id, 'run-z', "
                "now() + interval '1 minute' FROM bots WHERE name = 'adabot'"
            )
        assert "Hosted, always on" in needed and "waiting for a runner" in needed
        assert "running on run-z" in ada.get("/me").text
        assert "Last stopped" not in ada.get("/me").text
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(
                "INSERT INTO hosted_stops (bot_id, runner, cause, detail, stops) SELECT id, "
                "'run-y', 'memory', 'killed: used more memory than its limit', 3 FROM bots "
                "WHERE name = 'adabot'"
            )
        stopped = ada.get("/me").text
        assert (
            'Last stopped: <strong class="stop-cause">memory</strong> (killed: used more memory '
            "than its limit) on run-y"
        ) in stopped, stopped
        assert "3 stops so far" in stopped
    with _client(url) as eve:
        _signin(eve, "eve")
        page = eve.get("/me").text
        assert "run-z" not in page and "run-y" not in page, "another sees only their own bots"


def pack_bytes() -> Packed:
    """A small bot folder, packed."""
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "bot.py").write_text("print('hi')\n")
        return pack(Path(folder))
