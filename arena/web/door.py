"""The web server's door: every path and query value is checked before anything reads it.

Ids and counts are ASCII digits only (Python's `int()` also takes `1_0`, spaces and full-width
digits); text (names, filters) is at most `MAX_TEXT` characters with no control character (a NUL
reaches Postgres as an error, not as a lookup). Errors repeat a client's input clipped, as the
referee does. Pages for one signed-in person get their own door (`private_endpoint`): checked
the same way, never cached.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response

from arena.referee.limits import clip
from arena.storage.errors import StorageError

log = logging.getLogger(__name__)

MAX_LIMIT = 500
"""The most rows one API call returns."""
MAX_TEXT = 200
"""The longest name or filter value accepted (bot names are far shorter)."""
MAX_DIGITS = 18
"""Ids and offsets fit in Postgres's bigint."""


class BadRequest(ValueError):
    """A path or query value that does not parse, is out of range, or is not allowed text."""


class NotFoundError(LookupError):
    """The page or API asks for something that does not exist."""


def is_digits(raw: str) -> bool:
    """Whether `raw` is 1-18 ASCII digits (no sign, space, underscore or other script)."""
    return 0 < len(raw) <= MAX_DIGITS and raw.isascii() and raw.isdigit()


def check_text(raw: str, what: str) -> str:
    """`raw` if it is acceptable text for `what`, else `BadRequest` saying why."""
    if len(raw) > MAX_TEXT:
        raise BadRequest(f"{what} is {len(raw)} characters long; at most {MAX_TEXT}")
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in raw):
        raise BadRequest(f"{what} {clip(raw)!r} holds a control character")
    return raw


def check_door(request: Request) -> None:
    """Every path parameter and query value of `request` is acceptable text."""
    for name, value in request.path_params.items():
        check_text(str(value), name.replace("_", " "))
    for name, value in request.query_params.multi_items():
        check_text(name, "a query parameter's name")
        check_text(value, f"query parameter {clip(name)!r}")


def query_int(
    request: Request, name: str, default: int, low: int = 0, high: int = MAX_LIMIT
) -> int:
    """Query parameter `name` as an int in low..high, `default` when absent or empty."""
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if not is_digits(raw):
        raise BadRequest(f"query parameter {name!r} must be an integer, got {clip(raw)!r}")
    value = int(raw)
    if not low <= value <= high:
        raise BadRequest(f"query parameter {name!r} must be between {low} and {high}")
    return value


def path_id(request: Request, name: str) -> int:
    """Path parameter `name` as an id; `NotFoundError` (no such page) when it is not digits."""
    raw = str(request.path_params[name])
    if not is_digits(raw):
        raise NotFoundError(f"{name.replace('_', ' ')} must be a number, got {clip(raw)!r}")
    return int(raw)


RETRY_AFTER = 5
"""Seconds a client is asked to wait when the database is unreachable or every connection busy."""
BUSY = "the arena cannot answer right now; try again in a few seconds"
"""What a 503 says: nothing internal (no database address, no driver message)."""


async def page_or_error(
    page: Callable[..., Response],
    handler: Callable[[Request], Awaitable[Response]],
    request: Request,
) -> Response:
    """The handler's page, or the error page saying what was wrong: 404, 400, or a 503 with
    Retry-After that names nothing internal."""
    try:
        check_door(request)
        return await handler(request)
    except NotFoundError as exc:
        return page(request, "error.html", message=str(exc.args[0]), status_code=404)
    except BadRequest as exc:
        return page(request, "error.html", message=str(exc), status_code=400)
    except StorageError as exc:
        log.warning("a web page failed on storage: %s", exc)
        busy = page(request, "error.html", message=BUSY, status_code=503)
        busy.headers["Retry-After"] = str(RETRY_AFTER)
        return busy


def private_endpoint(
    page: Callable[..., Response], handler: Callable[[Request], Awaitable[Response]]
) -> Callable[[Request], Awaitable[Response]]:
    """A page for one signed-in person: never shared through the response cache (it would show
    one person's page to the next), and the handler's own headers (cookies, redirects) kept."""

    async def endpoint(request: Request) -> Response:
        response = await page_or_error(page, handler, request)
        response.headers["Cache-Control"] = "no-store"
        return response

    return endpoint
