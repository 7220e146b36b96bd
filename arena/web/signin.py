"""Web sign-in for accounts: a session cookie, CSRF tokens, "My bots" and the admin audit page.

A session is an API key of the account, named `web-<time>` and living `SESSION_LIFE`, kept in an
HttpOnly, SameSite=Lax cookie (Secure when the page is served over https); signing out revokes
it. Every form carries a CSRF token, an HMAC of the session key, checked in constant time on
POST. Failed sign-ins are rate limited per client address and per account name, like the gRPC
Login. The public pages stay as they are: they never read the cookie.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from arena.referee.auth import new_token, token_hash
from arena.referee.keys import key_hash, new_key, same_digest, verify_password
from arena.referee.limits import Rate, RateLimiter
from arena.storage.accounts import Accounts, BotOwnership, KeyOwner, Role, VersionRow
from arena.storage.db import Database
from arena.storage.rows import MatchStatus
from arena.storage.runners import Runners
from arena.web.private_replay import seat_steps, with_output

COOKIE = "arena_session"
SESSION_LIFE = timedelta(hours=12)
MAX_FORM_BYTES = 4096
FAILED_SIGNINS = Rate(burst=10, every=timedelta(seconds=2))
"""Failed sign-ins per client address and per account name (the gRPC Login's default)."""

Page = Callable[..., Response]


class SignIn:
    """The sign-in, sign-out, My bots and audit pages over one account store."""

    def __init__(
        self,
        db: Callable[[], Database],
        page: Page,
        failures: Rate = FAILED_SIGNINS,
    ) -> None:
        self.db = db
        self.page = page
        self.failures = RateLimiter(failures)

    @property
    def accounts(self) -> Accounts:
        return Accounts(self.db().pool)

    async def session(self, request: Request) -> tuple[KeyOwner, str] | None:
        """The signed-in account and its session key, if the cookie holds a live one."""
        key = request.cookies.get(COOKIE, "")
        if not key or len(key) > 128:
            return None
        digest = key_hash(key)
        owner = await self.accounts.by_key(digest)
        if owner is None or not same_digest(digest, owner.secret_hash):
            return None
        return owner, key

    async def signin_page(self, request: Request) -> Response:
        if request.method == "GET":
            return self.page(request, "signin.html", error="")
        form = await _form(request)
        name, password = form.get("name", ""), form.get("password", "")
        client = request.client.host if request.client else "unknown"
        by_name = f"account:{name}"
        if not (self.failures.allows(client) and self.failures.allows(by_name)):
            error = "too many failed sign-ins from your address or for this account; wait a minute"
            return self.page(request, "signin.html", error=error, status_code=429)
        row = await self.accounts.by_name(name) if 0 < len(name) <= 64 else None
        stored = None if row is None else row.password_hash
        if row is None or not await asyncio.to_thread(verify_password, stored, password[:200]):
            self.failures.take(client)
            self.failures.take(by_name)
            error = "wrong name or password"
            return self.page(request, "signin.html", error=error, status_code=401)
        key = new_key()
        expires = datetime.now(UTC) + SESSION_LIFE
        await self.accounts.create_key(row.id, f"web-{time.time_ns()}", key_hash(key), expires)
        response = RedirectResponse("/me", status_code=303)
        response.set_cookie(
            COOKIE,
            key,
            max_age=int(SESSION_LIFE.total_seconds()),
            httponly=True,
            samesite="lax",
            secure=request.url.scheme == "https",
        )
        return response

    async def signout(self, request: Request) -> Response:
        found = await self.session(request)
        if found is not None:
            _, key = found
            if await _checked_form(request, key) is None:
                return self._forged(request)
            await self.accounts.revoke_key_by_hash(key_hash(key))
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(COOKIE)
        return response

    def _forged(self, request: Request) -> Response:
        message = "the form's CSRF token is missing or wrong; reload the page and try again"
        return self.page(request, "error.html", message=message, status_code=403)

    async def my_bots(self, request: Request) -> Response:
        found = await self.session(request)
        if found is None:
            return RedirectResponse("/signin", status_code=303)
        owner, key = found
        shown: dict[str, str] = {}
        if request.method == "POST":
            form = await _checked_form(request, key)
            if form is None:
                return self._forged(request)
            bot = await self.accounts.bot(form.get("bot", ""))
            mine = bot is not None and (bot.owner_id == owner.id or owner.role == Role.ADMIN.value)
            if bot is None or not mine:
                return self.page(request, "error.html", message="not your bot", status_code=403)
            token = new_token()
            await self.accounts.rotate_token(bot.id, token_hash(token))
            await self.accounts.audit(
                owner.id, owner.name, "RotateBotToken", f"bot:{bot.name}", {"via": "web"}
            )
            shown[bot.name] = token
        bots = []
        needed = set(await Runners(self.db().pool).needed())
        for row in await self.accounts.bots_of(owner.id):
            versions = await self.accounts.versions(row.id)
            recent = await self.accounts.recent_matches(row.id)
            hosting = hosted_state(row, versions, row.id in needed)
            bots.append({"bot": row, "versions": versions, "recent": recent, "hosting": hosting})
        return self.page(request, "me.html", me=owner, bots=bots, shown=shown, csrf=csrf_token(key))

    async def private_replay(self, request: Request) -> Response:
        found = await self.session(request)
        if found is None:
            return RedirectResponse("/signin", status_code=303)
        owner, _ = found
        name = request.path_params["bot"]
        bot = await self.accounts.bot(name)
        mine = bot is not None and (bot.owner_id == owner.id or owner.role == Role.ADMIN.value)
        if bot is None or not mine:
            return self.page(request, "error.html", message="not your bot", status_code=403)
        raw = request.path_params["match_id"]
        match = await self.db().match(int(raw)) if raw.isdigit() and len(raw) < 19 else None
        seats = [] if match is None else [s.seat for s in match.seating if s.bot_id == bot.id]
        if match is None or not seats:
            message = f"{name} did not play match {raw}"
            return self.page(request, "error.html", message=message, status_code=404)
        if match.status not in (MatchStatus.FINISHED, MatchStatus.ABORTED):
            message = "the private replay opens when the match has ended"
            return self.page(request, "error.html", message=message, status_code=409)
        per_seat = {seat: await seat_steps(self.db(), match, seat) for seat in seats}
        per_seat, tail = await with_output(self.db(), match.id, bot.id, per_seat)
        return self.page(
            request, "private_replay.html", bot=name, match=match, per_seat=per_seat, tail=tail
        )

    async def audit_page(self, request: Request) -> Response:
        found = await self.session(request)
        if found is None:
            return RedirectResponse("/signin", status_code=303)
        owner, key = found
        if owner.role != Role.ADMIN.value:
            return self.page(request, "error.html", message="admins only", status_code=403)
        rows = await self.accounts.audit_log(None, 200, None)
        return self.page(request, "audit.html", entries=rows, csrf=csrf_token(key))

    def routes(
        self, wrap: Callable[[Callable[[Request], Awaitable[Response]]], Any]
    ) -> list[Route]:
        """The routes, each handler passed through `wrap` (the app's error pages)."""
        return [
            Route("/signin", wrap(self.signin_page), methods=["GET", "POST"]),
            Route("/signout", wrap(self.signout), methods=["POST"]),
            Route("/me", wrap(self.my_bots), methods=["GET", "POST"]),
            Route("/me/bots/{bot}/matches/{match_id}", wrap(self.private_replay)),
            Route("/admin/audit", wrap(self.audit_page)),
        ]


def csrf_token(session_key: str) -> str:
    """The CSRF token of a session: an HMAC of its key, never the key itself."""
    return hmac.new(session_key.encode(), b"arena-csrf", hashlib.sha256).hexdigest()


async def _form(request: Request) -> dict[str, str]:
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        return {}
    parsed = parse_qs(body.decode(errors="replace"), max_num_fields=20)
    return {k: v[0] for k, v in parsed.items()}


async def _checked_form(request: Request, key: str) -> dict[str, str] | None:
    """The form of a POST, or None unless it carries the session's CSRF token."""
    form = await _form(request)
    if not hmac.compare_digest(form.get("csrf", ""), csrf_token(key)):
        return None
    return form


def hosted_state(bot: BotOwnership, versions: Sequence[VersionRow], needed: bool) -> str:
    """What the runners do with `bot`, in a few words for its owner ("" for a bot its author
    runs): where it runs, or why it does not."""
    if not versions or versions[0].archive_sha256 is None:
        return ""
    if bot.runner:
        return f"running on {bot.runner}"
    if needed:
        return "needed: waiting for a runner to start it"
    if bot.retired_at is not None:
        return "not running: retired"
    return "not running: it runs while a tournament or ladder needs it, or always on"
