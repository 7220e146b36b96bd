"""The OpenAPI 3.1 document of the web server's JSON API (served at /api/openapi.json)."""

from __future__ import annotations

from functools import cache
from typing import Any

_SEAT = {
    "type": "object",
    "properties": {
        "seat": {"type": "integer"},
        "bot": {"type": "string"},
        "rank": {"type": ["integer", "null"], "description": "1 = best; null until the end"},
        "score": {"type": ["number", "null"]},
        "strikes": {"type": "integer"},
        "forfeited": {"type": "boolean"},
    },
}
_MATCH = {
    "type": "object",
    "properties": {
        "match_id": {"type": "integer"},
        "game": {"type": "string"},
        "status": {"enum": ["pending", "running", "finished", "aborted"]},
        "termination": {"type": ["string", "null"]},
        "tournament_id": {"type": ["integer", "null"]},
        "round_no": {"type": ["integer", "null"]},
        "table_no": {"type": ["integer", "null"]},
        "created_at": {"type": "string", "format": "date-time"},
        "finished_at": {"type": ["string", "null"], "format": "date-time"},
        "seats": {"type": "array", "items": {"$ref": "#/components/schemas/Seat"}},
    },
}
_STEPS = {
    "type": "object",
    "properties": {
        "match": {"$ref": "#/components/schemas/Match"},
        "total": {"type": "integer", "description": "public steps spectators may see now"},
        "from": {"type": "integer"},
        "defs": {"type": "string", "description": "SVG shared by every board (first page only)"},
        "steps": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "index": {"type": "integer", "description": "0 = the setup position"},
                    "decision": {"type": "integer", "description": "-1 for the setup"},
                    "label": {"type": "string"},
                    "board": {"type": "string", "description": "the public board, as HTML"},
                },
            },
        },
        "complete": {"type": "boolean", "description": "the match is over and all steps out"},
        "final": {"type": ["object", "null"], "description": "the stored ranking, once complete"},
    },
}


def _param(name: str, where: str, kind: str, description: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": where,
        "required": where == "path",
        "schema": {"type": kind},
        "description": description,
    }


def _get(
    summary: str, *params: dict[str, Any], schema: str | None = None, conflict: str | None = None
) -> dict[str, Any]:
    content = {"$ref": f"#/components/schemas/{schema}"} if schema else {"type": "object"}
    refusals = {} if conflict is None else {"409": {**ERROR, "description": conflict}}
    return {
        "get": {
            "summary": summary,
            "parameters": list(params),
            "responses": {
                "200": {"description": "OK", "content": {"application/json": {"schema": content}}},
                "400": {"$ref": "#/components/responses/Error"},
                "404": {"$ref": "#/components/responses/Error"},
                **refusals,
                "503": {"$ref": "#/components/responses/Error"},
            },
        }
    }


ERROR = {
    "description": "What was wrong",
    "content": {
        "application/json": {
            "schema": {"type": "object", "properties": {"error": {"type": "string"}}}
        }
    },
}
LIMIT = _param("limit", "query", "integer", "at most this many (1-500)")
MATCH_ID = _param("match_id", "path", "integer", "the match id")


@cache
def document() -> dict[str, Any]:
    """The OpenAPI document."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Arena web API",
            "version": "1",
            "description": "Read-only JSON behind the Arena pages. No call needs a token, and a "
            "running match shows only its public views, behind the spectator delay.",
        },
        "paths": {
            "/api/games": _get("The games the arena referees"),
            "/api/home": _get(
                "Games with their top bots, live matches, tournaments, recent matches"
            ),
            "/api/leaderboard/{game}": _get(
                "A game's leaderboard: rank, bot, Elo rating, games, the rating trend, and the "
                "OpenSkill estimate (mu - 3 sigma) when tournaments rated with it",
                _param("game", "path", "string", "the game's name, e.g. hart"),
                LIMIT,
            ),
            "/api/leaderboard/openspiel/{short}": _get(
                "An OpenSpiel game's leaderboard, as /api/leaderboard/{game} for the game "
                "openspiel/{short}",
                _param("short", "path", "string", "OpenSpiel's name of the game, e.g. leduc_poker"),
                LIMIT,
            ),
            "/api/bots/{name}": _get(
                "A bot's statistics per game: results, rating history, timeouts, strikes by "
                "kind, forfeits, think-time percentiles, the last Problems; its recent matches",
                _param("name", "path", "string", "the bot's name"),
            ),
            "/api/tournaments": _get("Tournaments, newest first", LIMIT),
            "/api/tournaments/{tournament_id}": _get(
                "A tournament: rounds and tables with their matches, standings with tie-breaks",
                _param("tournament_id", "path", "integer", "the tournament id"),
            ),
            "/api/versiontests": _get(
                "Version tests, newest first: sides, status, LLR against its bounds, matches "
                "counted, who started each",
                _param("status", "query", "string", "running, h0, h1, capped or stopped"),
                LIMIT,
            ),
            "/api/versiontests/{test_id}": _get(
                "A version test: its sets with their matches, LLR, bounds and Elo estimate",
                _param("test_id", "path", "integer", "the version test id"),
            ),
            "/api/matches": _get(
                "Matches, newest first",
                _param("status", "query", "string", "pending, running, finished or aborted"),
                _param("game", "query", "string", "only this game"),
                _param("bot", "query", "string", "only matches this bot played"),
                LIMIT,
            ),
            "/api/matches/{match_id}": _get("One match", MATCH_ID, schema="Match"),
            "/api/matches/{match_id}/steps": _get(
                "The public views of a match decision by decision, each board drawn as HTML; "
                "a running match only up to the spectator delay",
                MATCH_ID,
                _param("from", "query", "integer", "the first step to return"),
                LIMIT,
                schema="Steps",
            ),
            "/api/matches/{match_id}/replay": _get(
                "The full record (seed and every action) of a match that has ended; 409 while "
                "it runs",
                MATCH_ID,
                conflict="The match has not ended: its record opens at its end",
            ),
            "/api/matches/{match_id}/live": _get(
                "Server-Sent Events: `step` events (the `Steps` step form, `id` = step index) as "
                "they pass the spectator delay, then one `end` event with the final ranking; "
                "resumes after `Last-Event-ID`, or from step `from`",
                MATCH_ID,
                {"name": "from", "in": "query", "schema": {"type": "integer", "minimum": 0}},
            ),
            "/api/tournaments/{tournament_id}/live": _get(
                "Server-Sent Events: an `update` event with the tournament's JSON (as "
                "/api/tournaments/{tournament_id}) now and whenever it changes, until it ends",
                _param("tournament_id", "path", "integer", "the tournament id"),
            ),
            "/api/home/live": _get(
                "Server-Sent Events: an `update` event with the home page's JSON (as /api/home, "
                "live matches included) now and whenever it changes"
            ),
        },
        "components": {
            "schemas": {"Seat": _SEAT, "Match": _MATCH, "Steps": _STEPS},
            "responses": {"Error": ERROR},
        },
    }
