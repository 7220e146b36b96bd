"""The web front: HTML pages and the JSON API behind them, one Starlette application.

Pages: Home, Leaderboard per game, Bot, Tournament, Version test and the Match viewer. Every page
has a JSON twin under /api (documented at /api/openapi.json). Read-only: nothing needs or shows a
token. Signed-in pages (sign-in, My bots, the admin audit log) live in `arena.web.signin`.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from arena.referee.limits import clip
from arena.storage.db import Database
from arena.storage.errors import StorageError
from arena.storage.rows import MatchStatus
from arena.tournament import rounds as tournaments
from arena.web import charts, data, game_list, live, openapi, versiontests
from arena.web.boards import colour
from arena.web.cache import Final, Rendered, ResponseCache, dumps
from arena.web.config import WebConfig as WebConfig  # where callers have always found it
from arena.web.door import (
    BUSY,
    RETRY_AFTER,
    BadRequest,
    NotFoundError,
    check_door,
    page_or_error,
    path_id,
    private_endpoint,
    query_int,
)
from arena.web.headers import SecurityHeaders
from arena.web.metrics import MetricsMiddleware
from arena.web.signin import SignIn
from arena.web.static import StaticFiles
from arena.web.steps import MatchSteps

HERE = Path(__file__).parent
JSON = "application/json"
HTML = "text/html; charset=utf-8"
log = logging.getLogger(__name__)


class Web:
    """The application's state: the database, the step cache and the templates."""

    def __init__(self, config: WebConfig, db: Database | None = None) -> None:
        self.config = config
        self.db: Database | None = db
        self._owns_db = db is None
        self.steps: MatchSteps | None = None
        self.live: live.LiveHub | None = None
        self.responses = ResponseCache(config.fresh_for.total_seconds(), config.cache_bytes)
        self.templates = Jinja2Templates(directory=str(HERE / "templates"))
        self.templates.env.globals.update(colour=colour, sparkline=charts.sparkline)

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        """Open the database pool for the life of the server."""
        if self.db is None:
            self.db = await Database.open(
                self.config.database_url,
                min_size=1,
                max_size=self.config.pool_size,
                acquire_timeout=self.config.pool_wait,
            )
        self.steps = MatchSteps(self.db, self.config.spectator_delay)
        self.live = live.hub(self.db, self.steps, self.config)
        if self.config.redis_url:
            await live.listen(self.live, self.config.redis_url)
        try:
            yield
        finally:
            await self.live.close()
            if self._owns_db:
                await self.db.close()
                self.db = None

    @property
    def database(self) -> Database:
        assert self.db is not None, "the app is used outside its lifespan"
        return self.db

    @property
    def cache(self) -> MatchSteps:
        assert self.steps is not None, "the app is used outside its lifespan"
        return self.steps

    # -- the JSON API ------------------------------------------------------------------------------
    async def api_games(self, request: Request) -> dict[str, Any]:
        return {"games": data.games(), "openspiel": game_list.openspiel_games()["games"]}

    async def api_home(self, request: Request) -> dict[str, Any]:
        return await data.home(self.database)

    async def api_leaderboard(self, request: Request) -> dict[str, Any]:
        limit = query_int(request, "limit", 50, 1)
        return await data.leaderboard(self.database, game_of(request), limit)

    async def api_bot(self, request: Request) -> dict[str, Any]:
        return await data.bot(self.database, request.path_params["name"])

    async def api_tournaments(self, request: Request) -> dict[str, Any]:
        limit = query_int(request, "limit", 50, 1)
        rows = await tournaments.list_tournaments(self.database, None, limit)
        return {"tournaments": [data._tournament_head(t) for t in rows]}

    async def api_tournament(self, request: Request) -> dict[str, Any]:
        return await data.tournament(self.database, path_id(request, "tournament_id"))

    async def api_version_tests(self, request: Request) -> dict[str, Any]:
        return await versiontests.version_tests(self.database, request, 50)

    async def api_version_test(self, request: Request) -> dict[str, Any]:
        return await versiontests.version_test(self.database, path_id(request, "test_id"))

    async def api_matches(self, request: Request) -> dict[str, Any]:
        status_name = request.query_params.get("status") or None
        try:
            status = None if status_name is None else MatchStatus(status_name)
        except ValueError:
            known = ", ".join(s.value for s in MatchStatus)
            raise BadRequest(f"unknown status {status_name!r}; known: {known}") from None
        game = request.query_params.get("game") or None
        if game is not None:
            data.check_game(game)
        bot_id = None
        if request.query_params.get("bot"):
            found = await self.database.bot_by_name(request.query_params["bot"])
            if found is None:
                raise NotFoundError(f"unknown bot {request.query_params['bot']!r}")
            bot_id = found.id
        rows = await self.database.list_matches(
            status=status, game=game, bot_id=bot_id, limit=query_int(request, "limit", 50, 1)
        )
        return {"matches": [data.match_summary(r) for r in rows]}

    async def api_match(self, request: Request) -> dict[str, Any] | Final:
        row = await data.match(self.database, path_id(request, "match_id"))
        summary = data.match_summary(row)
        return Final(summary) if row.status in data.ENDED else summary

    async def api_steps(self, request: Request) -> dict[str, Any] | Final:
        reply = await data.match_steps(
            self.database,
            self.cache,
            path_id(request, "match_id"),
            query_int(request, "from", 0, 0, 10**9),
            query_int(request, "limit", 200, 1),
        )
        return Final(reply) if reply["match"]["status"] in ENDED_NAMES else reply

    async def api_replay(self, request: Request) -> Final | Rendered:
        match_id = path_id(request, "match_id")
        row = await data.match(self.database, match_id)
        if row.status not in data.ENDED:
            message = f"match {match_id} is {row.status.value}: its record opens at its end"
            return _error(409, message)
        record = await self.database.record(match_id)
        return Final({"match_id": match_id, "record": record.to_json()})

    async def api_live(self, request: Request) -> Response:
        assert self.live is not None, "the app is used outside its lifespan"
        return await live.respond(self.live, request, path_id(request, "match_id"))

    async def api_tournament_live(self, request: Request) -> Response:
        assert self.live is not None, "the app is used outside its lifespan"
        tid = path_id(request, "tournament_id")
        loader = functools.partial(data.tournament, self.database, tid)
        return await live.respond_document(self.live, f"tournament-{tid}", loader)

    async def api_home_live(self, request: Request) -> Response:
        assert self.live is not None, "the app is used outside its lifespan"
        loader = functools.partial(data.home, self.database)
        return await live.respond_document(self.live, "home", loader)

    # -- pages -------------------------------------------------------------------------------------
    def page(self, request: Request, name: str, status_code: int = 200, **context: Any) -> Response:
        """A page rendered from its template with the navigation's context."""
        poll = int(self.config.poll_interval.total_seconds() * 1000)
        return self.templates.TemplateResponse(
            request,
            name,
            {"games": data.games(), "poll_ms": poll, **context},
            status_code=status_code,
        )

    async def home_page(self, request: Request) -> Response:
        return self.page(request, "home.html", home=await data.home(self.database))

    async def games_page(self, request: Request) -> Response:
        return self.page(request, "games.html", openspiel=game_list.openspiel_games())

    async def leaderboard_page(self, request: Request) -> Response:
        board = await data.leaderboard(self.database, game_of(request))
        return self.page(request, "leaderboard.html", board=board)

    async def bot_page(self, request: Request) -> Response:
        bot = await data.bot(self.database, request.path_params["name"])
        chart_of = {}
        for g in bot["games"]:
            history = g["history"]
            start = [(0, history[0]["before"])] if history else []
            points = start + [(p["match_id"], p["rating"]) for p in history]
            chart_of[g["game"]] = charts.rating_chart(points, f"{g['game']} rating")
        return self.page(request, "bot.html", bot=bot, charts=chart_of)

    async def tournament_page(self, request: Request) -> Response:
        info = await data.tournament(self.database, path_id(request, "tournament_id"))
        return self.page(request, "tournament.html", t={**info, **data.starts(info["starts_at"])})

    async def version_tests_page(self, request: Request) -> Response:
        info = await versiontests.version_tests(self.database, request, 100)
        return self.page(request, "versiontests.html", **info, words=versiontests.STATUS_WORDS)

    async def version_test_page(self, request: Request) -> Response:
        info = await versiontests.version_test(self.database, path_id(request, "test_id"))
        return self.page(request, "versiontest.html", **versiontests.page_context(info))

    async def match_page(self, request: Request) -> Response:
        row = await data.match(self.database, path_id(request, "match_id"))
        return self.page(request, "match.html", match=data.match_summary(row))

    async def api_page(self, request: Request) -> Response:
        return self.page(request, "api.html", doc=openapi.document())


ENDED_NAMES = frozenset(s.value for s in data.ENDED)


def game_of(request: Request) -> str:
    """A leaderboard route's game: `{game}` or `openspiel/{short}` (a parameter holds no `/`)."""
    params = request.path_params
    return str(params["game"]) if "game" in params else f"openspiel/{params['short']}"


def _error(status: int, message: str, *headers: tuple[str, str]) -> Rendered:
    return Rendered(status, dumps({"error": message}), JSON, headers=headers)


def _busy(exc: StorageError) -> str:
    log.warning("a web request failed on storage: %s", exc)
    return BUSY


RETRY = ("Retry-After", str(RETRY_AFTER))
Handler = Callable[[Request], Awaitable[Any]]
Endpoint = Callable[[Request], Awaitable[Response]]


def _json(web: Web, handler: Handler) -> Endpoint:
    async def render(request: Request) -> Rendered:
        try:
            check_door(request)
            result = await handler(request)
        except NotFoundError as exc:
            return _error(404, str(exc.args[0]))
        except BadRequest as exc:
            return _error(400, str(exc))
        except StorageError as exc:
            return _error(503, _busy(exc), RETRY)
        if isinstance(result, Rendered):
            return result
        if isinstance(result, Final):
            return Rendered(200, dumps(result.body), JSON, final=True)
        return Rendered(200, dumps(result), JSON)

    async def endpoint(request: Request) -> Response:
        return await web.responses.serve(request, lambda: render(request))

    return endpoint


def _html(web: Web, handler: Handler) -> Endpoint:
    async def render(request: Request) -> Rendered:
        result = await page_or_error(web.page, handler, request)
        headers = (RETRY,) if result.status_code == 503 else ()
        return Rendered(result.status_code, bytes(result.body), HTML, headers=headers)

    async def endpoint(request: Request) -> Response:
        return await web.responses.serve(request, lambda: render(request))

    return endpoint


def create_app(config: WebConfig, db: Database | None = None) -> Starlette:
    """The web application; with `db` given it uses that pool instead of opening one."""
    web = Web(config, db)

    async def refused(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        headers = dict(exc.headers or {}) if isinstance(exc, HTTPException) else {}
        if status == 405:
            allowed = headers.get("Allow", "GET, HEAD")
            message = f"method {clip(request.method)} is not allowed here; use {allowed}"
        elif request.url.path.startswith("/api/"):
            message = "no such API endpoint; see /api/openapi.json"
        else:
            message = "no such page"
        if request.url.path.startswith("/api/"):
            return Response(dumps({"error": message}), status, headers, media_type=JSON)
        page = web.page(request, "error.html", message=message, status_code=status)
        page.headers.update(headers)
        return page

    async def openapi_json(request: Request) -> Response:
        return await web.responses.serve(
            request, lambda: _rendered(Rendered(200, dumps(openapi.document()), JSON))
        )

    async def health(request: Request) -> Response:
        return PlainTextResponse("ok", headers={"Cache-Control": "no-store"})

    signin = SignIn(lambda: web.database, web.page, config.failed_signins)
    routes = [
        *signin.routes(lambda handler: private_endpoint(web.page, handler)),
        Route("/", _html(web, web.home_page)),
        Route("/games", _html(web, web.games_page)),
        Route("/leaderboard/{game}", _html(web, web.leaderboard_page)),
        Route("/leaderboard/openspiel/{short}", _html(web, web.leaderboard_page)),
        Route("/bots/{name}", _html(web, web.bot_page)),
        Route("/tournaments/{tournament_id}", _html(web, web.tournament_page)),
        Route("/matches/{match_id}", _html(web, web.match_page)),
        Route("/versiontests", _html(web, web.version_tests_page)),
        Route("/versiontests/{test_id}", _html(web, web.version_test_page)),
        Route("/api", _html(web, web.api_page)),
        Route("/api/openapi.json", openapi_json),
        Route("/api/games", _json(web, web.api_games)),
        Route("/api/home", _json(web, web.api_home)),
        Route("/api/leaderboard/{game}", _json(web, web.api_leaderboard)),
        Route("/api/leaderboard/openspiel/{short}", _json(web, web.api_leaderboard)),
        Route("/api/bots/{name}", _json(web, web.api_bot)),
        Route("/api/tournaments", _json(web, web.api_tournaments)),
        Route("/api/tournaments/{tournament_id}", _json(web, web.api_tournament)),
        Route("/api/versiontests", _json(web, web.api_version_tests)),
        Route("/api/versiontests/{test_id}", _json(web, web.api_version_test)),
        Route("/api/matches", _json(web, web.api_matches)),
        Route("/api/matches/{match_id}", _json(web, web.api_match)),
        Route("/api/matches/{match_id}/steps", _json(web, web.api_steps)),
        Route("/api/matches/{match_id}/replay", _json(web, web.api_replay)),
        Route("/api/matches/{match_id}/live", live.endpoint(web.api_live)),
        Route("/api/tournaments/{tournament_id}/live", live.endpoint(web.api_tournament_live)),
        Route("/api/home/live", live.endpoint(web.api_home_live)),
        Route("/healthz", health),
        Route("/static/{file}", StaticFiles(HERE / "static", web.responses).endpoint),
    ]
    return Starlette(
        routes=routes,
        middleware=[
            Middleware(MetricsMiddleware),
            Middleware(SecurityHeaders),
            Middleware(GZipMiddleware, minimum_size=500, compresslevel=6),
        ],
        exception_handlers={404: refused, 405: refused},
        lifespan=web.lifespan,
    )


async def _rendered(rendered: Rendered) -> Rendered:
    return rendered
