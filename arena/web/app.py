"""The web front: HTML pages and the JSON API behind them, one Starlette application.

Pages: Home, Leaderboard per game, Bot, Tournament and the Match viewer. Every page has a JSON
twin under /api (documented at /api/openapi.json). Read-only: nothing needs or shows a token.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from arena.storage.db import Database
from arena.storage.errors import StorageError
from arena.storage.rows import MatchStatus
from arena.tournament import rounds as tournaments
from arena.web import charts, data, openapi
from arena.web.boards import colour
from arena.web.metrics import MetricsMiddleware
from arena.web.steps import MatchSteps

HERE = Path(__file__).parent
MAX_LIMIT = 500


@dataclass(frozen=True, slots=True)
class WebConfig:
    """Settings of the web server."""

    database_url: str = ""
    """Where Postgres is (ignored when a `Database` is given to `create_app`)."""
    spectator_delay: timedelta = timedelta(seconds=3)
    """A running match is shown this long after each decision, never sooner."""
    poll_interval: timedelta = timedelta(seconds=1)
    """How often live pages ask the API for news."""


class BadRequest(ValueError):
    """A query parameter that does not parse or is out of range."""


def _int(request: Request, name: str, default: int, low: int = 0, high: int = MAX_LIMIT) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(f"query parameter {name!r} must be an integer, got {raw!r}") from None
    if not low <= value <= high:
        raise BadRequest(f"query parameter {name!r} must be between {low} and {high}")
    return value


def _path_int(request: Request, name: str) -> int:
    raw = request.path_params[name]
    try:
        return int(raw)
    except ValueError:
        raise data.NotFoundError(
            f"{name.replace('_', ' ')} must be a number, got {raw!r}"
        ) from None


class Web:
    """The application's state: the database, the step cache and the templates."""

    def __init__(self, config: WebConfig, db: Database | None = None) -> None:
        self.config = config
        self.db: Database | None = db
        self._owns_db = db is None
        self.steps: MatchSteps | None = None
        self.templates = Jinja2Templates(directory=str(HERE / "templates"))
        self.templates.env.globals.update(colour=colour, sparkline=charts.sparkline)

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        """Open the database pool for the life of the server."""
        if self.db is None:
            self.db = await Database.open(self.config.database_url, min_size=1, max_size=5)
        self.steps = MatchSteps(self.db, self.config.spectator_delay)
        try:
            yield
        finally:
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
        return {"games": data.games()}

    async def api_home(self, request: Request) -> dict[str, Any]:
        return await data.home(self.database)

    async def api_leaderboard(self, request: Request) -> dict[str, Any]:
        limit = _int(request, "limit", 50, 1)
        return await data.leaderboard(self.database, request.path_params["game"], limit)

    async def api_bot(self, request: Request) -> dict[str, Any]:
        return await data.bot(self.database, request.path_params["name"])

    async def api_tournaments(self, request: Request) -> dict[str, Any]:
        limit = _int(request, "limit", 50, 1)
        rows = await tournaments.list_tournaments(self.database, None, limit)
        return {"tournaments": [data._tournament_head(t) for t in rows]}

    async def api_tournament(self, request: Request) -> dict[str, Any]:
        return await data.tournament(self.database, _path_int(request, "tournament_id"))

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
                raise data.NotFoundError(f"unknown bot {request.query_params['bot']!r}")
            bot_id = found.id
        rows = await self.database.list_matches(
            status=status, game=game, bot_id=bot_id, limit=_int(request, "limit", 50, 1)
        )
        return {"matches": [data.match_summary(r) for r in rows]}

    async def api_match(self, request: Request) -> dict[str, Any]:
        row = await data.match(self.database, _path_int(request, "match_id"))
        return data.match_summary(row)

    async def api_steps(self, request: Request) -> dict[str, Any]:
        return await data.match_steps(
            self.database,
            self.cache,
            _path_int(request, "match_id"),
            _int(request, "from", 0, 0, 10**9),
            _int(request, "limit", 200, 1),
        )

    async def api_replay(self, request: Request) -> Response:
        match_id = _path_int(request, "match_id")
        row = await data.match(self.database, match_id)
        if row.status not in data.ENDED:
            return _error(
                409, f"match {match_id} is {row.status.value}: its record opens at its end"
            )
        record = await self.database.record(match_id)
        return JSONResponse({"match_id": match_id, "record": record.to_json()})

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

    async def leaderboard_page(self, request: Request) -> Response:
        board = await data.leaderboard(self.database, request.path_params["game"])
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
        info = await data.tournament(self.database, _path_int(request, "tournament_id"))
        return self.page(request, "tournament.html", t=info)

    async def match_page(self, request: Request) -> Response:
        row = await data.match(self.database, _path_int(request, "match_id"))
        return self.page(request, "match.html", match=data.match_summary(row))

    async def api_page(self, request: Request) -> Response:
        return self.page(request, "api.html", doc=openapi.document())


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


Handler = Callable[[Request], Awaitable[Any]]


def _json(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        try:
            result = await handler(request)
        except data.NotFoundError as exc:
            return _error(404, str(exc.args[0]))
        except BadRequest as exc:
            return _error(400, str(exc))
        except StorageError as exc:
            return _error(503, f"the database is unavailable: {exc}")
        return result if isinstance(result, Response) else JSONResponse(result)

    return endpoint


def _html(web: Web, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        try:
            result: Response = await handler(request)
        except data.NotFoundError as exc:
            return web.page(request, "error.html", message=str(exc.args[0]), status_code=404)
        except StorageError as exc:
            message = f"the database is unavailable: {exc}"
            return web.page(request, "error.html", message=message, status_code=503)
        return result

    return endpoint


def create_app(config: WebConfig, db: Database | None = None) -> Starlette:
    """The web application; with `db` given it uses that pool instead of opening one."""
    web = Web(config, db)

    async def not_found(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        if request.url.path.startswith("/api/"):
            return _error(status, "no such API endpoint; see /api/openapi.json")
        return web.page(request, "error.html", message="no such page", status_code=status)

    async def openapi_json(request: Request) -> Response:
        return JSONResponse(openapi.document())

    async def health(request: Request) -> Response:
        return PlainTextResponse("ok")

    routes = [
        Route("/", _html(web, web.home_page)),
        Route("/leaderboard/{game}", _html(web, web.leaderboard_page)),
        Route("/bots/{name}", _html(web, web.bot_page)),
        Route("/tournaments/{tournament_id}", _html(web, web.tournament_page)),
        Route("/matches/{match_id}", _html(web, web.match_page)),
        Route("/api", web.api_page),
        Route("/api/openapi.json", openapi_json),
        Route("/api/games", _json(web.api_games)),
        Route("/api/home", _json(web.api_home)),
        Route("/api/leaderboard/{game}", _json(web.api_leaderboard)),
        Route("/api/bots/{name}", _json(web.api_bot)),
        Route("/api/tournaments", _json(web.api_tournaments)),
        Route("/api/tournaments/{tournament_id}", _json(web.api_tournament)),
        Route("/api/matches", _json(web.api_matches)),
        Route("/api/matches/{match_id}", _json(web.api_match)),
        Route("/api/matches/{match_id}/steps", _json(web.api_steps)),
        Route("/api/matches/{match_id}/replay", _json(web.api_replay)),
        Route("/healthz", health),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    return Starlette(
        routes=routes,
        middleware=[Middleware(MetricsMiddleware)],
        exception_handlers={404: not_found, 405: not_found},
        lifespan=web.lifespan,
    )
