"""Who may call what: one permission rule per RPC, checked at the door by `guard.Guard`.

Every RPC of every arena.v1 service has exactly one row in `RULES` (tests/referee/
test_permissions.py walks the service descriptors and fails for an RPC without one; an RPC
missing from the table is refused at run time). A rule says:

- `who`: the least a caller must be. ANYONE needs no key (a key sent anyway must be valid);
  BOT is a bot token, checked by the stream's Hello; ACCOUNT is any account's API key;
  ORGANISER an organiser's or admin's; ADMIN an admin's.
- `owns`: the thing the request names that the caller must own (a bot, tournament, schedule,
  ladder or version test), or several (a version test's two sides). Admins own everything, and
  organisers own what a rule with `organisers_own` names (version tests). A
  version test's side (`entrant`, NAME or NAME@LABEL) is owned by the bot's owner; a test is
  owned by whoever started it and by the owner of both its sides. A request that leaves the
  field empty (CreateMatch without a tournament) or names something that does not exist (the RPC
  then answers NOT_FOUND, or creates it) is not held back by `owns`.
- `claims`: what the caller owns once the call succeeds (a field of the response).
- `audit`: whether a successful call is written to the audit log; `target` names what it changed.

A bot token never manages anything: it only plays, as its own bot (docs/security.md).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from arena.v1 import account_pb2, arena_pb2, bot_pb2


class Who(enum.Enum):
    """The least a caller must be."""

    ANYONE = 0
    BOT = 1
    ACCOUNT = 2
    ORGANISER = 3
    ADMIN = 4


@dataclass(frozen=True, slots=True)
class Field:
    """A kind of thing and the message field that names it, e.g. a bot named by `bot`."""

    kind: str
    """'bot', 'entrant', 'tournament', 'schedule', 'ladder', 'versiontest', 'account' or 'key'."""
    field: str


@dataclass(frozen=True, slots=True)
class Rule:
    """The permission rule of one RPC."""

    who: Who
    owns: Field | tuple[Field, ...] | None = None
    """The thing (or things) named in the request that the caller must own (admins own
    everything)."""

    @property
    def owned(self) -> tuple[Field, ...]:
        """Every thing the caller must own."""
        if self.owns is None:
            return ()
        return self.owns if isinstance(self.owns, tuple) else (self.owns,)

    claims: Field | None = None
    """The thing named in the response that the caller owns from then on."""
    audit: bool = False
    """Whether a successful call is written to the audit log."""
    target: Field | None = None
    """What an audit entry says was changed, when neither `owns` nor `claims` says it."""
    organisers_own: bool = False
    """Whether an organiser may act on what `owns` names without owning it (version tests:
    the organiser or the owner of both sides, as issue 29 asks)."""


def _svc(module: object, name: str) -> str:
    return str(module.DESCRIPTOR.services_by_name[name].full_name)  # type: ignore[attr-defined]


ARENA = _svc(arena_pb2, "ArenaService")
ACCOUNTS = _svc(account_pb2, "AccountService")
BOTS = _svc(bot_pb2, "BotService")

_ANYONE = Rule(Who.ANYONE)
_TOURNAMENT = Field("tournament", "tournament_id")
_SCHEDULE = Field("schedule", "schedule_id")
_LADDER = Field("ladder", "game")
_BOT = Field("bot", "bot")

RULES: dict[str, Rule] = {
    # -- ArenaService: reading is public; organisers manage their own competitions
    f"/{ARENA}/RegisterBot": Rule(Who.ANYONE, audit=True, target=Field("bot", "name")),
    f"/{ARENA}/ListGames": _ANYONE,
    f"/{ARENA}/CreateMatch": Rule(Who.ORGANISER, owns=_TOURNAMENT, audit=True),
    f"/{ARENA}/GetMatch": _ANYONE,
    f"/{ARENA}/ListMatches": _ANYONE,
    f"/{ARENA}/WatchMatch": _ANYONE,
    f"/{ARENA}/GetReplay": _ANYONE,
    f"/{ARENA}/ListBots": _ANYONE,
    f"/{ARENA}/CreateTournament": Rule(Who.ORGANISER, claims=_TOURNAMENT, audit=True),
    f"/{ARENA}/ListTournaments": _ANYONE,
    f"/{ARENA}/GetTournament": _ANYONE,
    f"/{ARENA}/GetLeaderboard": _ANYONE,
    f"/{ARENA}/GetBotStats": _ANYONE,
    f"/{ARENA}/WithdrawEntrant": Rule(Who.ORGANISER, owns=_TOURNAMENT, audit=True),
    f"/{ARENA}/EnterEntrant": Rule(Who.ORGANISER, owns=_TOURNAMENT, audit=True),
    f"/{ARENA}/CreateSchedule": Rule(Who.ORGANISER, claims=_SCHEDULE, audit=True),
    f"/{ARENA}/ListSchedules": _ANYONE,
    f"/{ARENA}/PauseSchedule": Rule(Who.ORGANISER, owns=_SCHEDULE, audit=True),
    f"/{ARENA}/DeleteSchedule": Rule(Who.ORGANISER, owns=_SCHEDULE, audit=True),
    f"/{ARENA}/StartLadder": Rule(Who.ORGANISER, owns=_LADDER, claims=_LADDER, audit=True),
    f"/{ARENA}/StopLadder": Rule(Who.ORGANISER, owns=_LADDER, audit=True),
    f"/{ARENA}/ListReferees": _ANYONE,
    # Version tests: an organiser, or the owner of both sides (docs/versiontests.md)
    f"/{ARENA}/StartVersionTest": Rule(
        Who.ACCOUNT,
        owns=(Field("entrant", "candidate"), Field("entrant", "baseline")),
        audit=True,
        target=Field("bot", "candidate"),
        organisers_own=True,
    ),
    f"/{ARENA}/StopVersionTest": Rule(
        Who.ACCOUNT, owns=Field("versiontest", "test_id"), audit=True, organisers_own=True
    ),
    f"/{ARENA}/GetVersionTest": _ANYONE,
    f"/{ARENA}/ListVersionTests": _ANYONE,
    # -- AccountService: accounts manage their keys and their own bots
    f"/{ACCOUNTS}/CreateAccount": Rule(Who.ANYONE, audit=True, target=Field("account", "name")),
    f"/{ACCOUNTS}/Login": Rule(Who.ANYONE, audit=True, target=Field("account", "name")),
    f"/{ACCOUNTS}/WhoAmI": Rule(Who.ACCOUNT),
    f"/{ACCOUNTS}/CreateKey": Rule(Who.ACCOUNT, audit=True, target=Field("key", "name")),
    f"/{ACCOUNTS}/ListKeys": Rule(Who.ACCOUNT),
    f"/{ACCOUNTS}/RevokeKey": Rule(Who.ACCOUNT, audit=True, target=Field("key", "name")),
    f"/{ACCOUNTS}/SetRole": Rule(Who.ADMIN, audit=True, target=Field("account", "name")),
    f"/{ACCOUNTS}/RotateBotToken": Rule(Who.ACCOUNT, owns=_BOT, audit=True),
    f"/{ACCOUNTS}/RetireBot": Rule(Who.ACCOUNT, owns=_BOT, audit=True),
    f"/{ACCOUNTS}/CreateBotVersion": Rule(Who.ACCOUNT, owns=_BOT, audit=True),
    f"/{ACCOUNTS}/UploadArchivePart": Rule(Who.ACCOUNT, owns=_BOT),
    f"/{ACCOUNTS}/UploadBotVersion": Rule(Who.ACCOUNT, owns=_BOT, audit=True),
    f"/{ACCOUNTS}/ListBotVersions": _ANYONE,
    f"/{ACCOUNTS}/SetBotAlwaysOn": Rule(Who.ACCOUNT, owns=_BOT, audit=True),
    f"/{ACCOUNTS}/ListAudit": Rule(Who.ACCOUNT),
    # -- BotService: a bot token, checked by the stream's Hello
    f"/{BOTS}/Play": Rule(Who.BOT),
}
"""The permission rule of every RPC, by its full method path."""

GUARDED_SERVICES = (ARENA, ACCOUNTS, BOTS)
"""The services whose every RPC needs a rule; others (health, reflection) are public."""

SECRET_FIELDS = frozenset({"password", "token", "secret"})
"""Request fields an audit entry never records."""
