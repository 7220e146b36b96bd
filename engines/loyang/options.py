"""The options of a Loyang match, checked against the seat count into its `Config`."""

from __future__ import annotations

from collections.abc import Mapping

from engines.errors import OptionsError
from engines.loyang.state import Config, Timing
from engines.options import Option

OPTIONS = (
    Option(
        "beginner",
        bool,
        False,
        "beginner variant: each seat starts with a blue-dot regular customer in hand",
    ),
    Option(
        "two_player_rule",
        str,
        "auto",
        "2-player card phase: reveal the deck top instead of playing (auto: on with 2 seats)",
        choices=("auto", "on", "off"),
    ),
    Option(
        "paired",
        bool,
        False,
        "4-player variant: paired action phase, the two start players act at once",
    ),
    Option(
        "solo", bool, False, "solo variant with the 3x4 grid (1 seat only; implied with 1 seat)"
    ),
    Option(
        "scoring_timing",
        str,
        Timing.OWN_TURN.value,
        "when seats store and pay for the Path: end of their own turn, or all at round end (L13)",
        choices=tuple(t.value for t in Timing),
    ),
    Option(
        "shop_stock_mode",
        str,
        "unlimited",
        "unlimited: shop stock is display only; strict: buying needs stock, selling room (L2)",
        choices=("unlimited", "strict"),
    ),
    Option(
        "regular_max_per_round",
        int,
        2,
        "deliveries one regular customer accepts per round (double delivery, L14)",
        minimum=1,
        maximum=4,
    ),
    Option(
        "solo_discard_row",
        int,
        2,
        "solo: the grid row (1 = top) whose leftover cards are discarded each round "
        "(the seed: row 2; research L19 reads row 1)",
        minimum=1,
        maximum=2,
    ),
    Option(
        "voluntary_loans",
        bool,
        False,
        "loans also at any time of your own action turn, not only when money is due (L22)",
    ),
)


def config_from(seats: int, options: Mapping[str, object]) -> Config:
    """Check that the options fit the seat count and build the match `Config`."""
    solo = bool(options["solo"]) or seats == 1
    if solo and seats != 1:
        raise OptionsError("the solo variant is for 1 seat")
    if options["beginner"] and solo:
        raise OptionsError("the beginner variant needs 2-4 seats")
    if options["paired"] and seats != 4:
        raise OptionsError("the paired action phase is a 4-player variant")
    rule = options["two_player_rule"]
    if rule == "on" and seats != 2:
        raise OptionsError("the 2-player card-phase rule needs 2 seats")
    return Config(
        seats=seats,
        solo=solo,
        beginner=bool(options["beginner"]),
        two_player_rule=rule == "on" or (rule == "auto" and seats == 2),
        paired=bool(options["paired"]),
        timing=Timing(options["scoring_timing"]),
        strict_stock=options["shop_stock_mode"] == "strict",
        regular_max=int(options["regular_max_per_round"]),  # type: ignore[call-overload]
        solo_discard_row=int(options["solo_discard_row"]),  # type: ignore[call-overload]
        voluntary_loans=bool(options["voluntary_loans"]),
    )
