"""Issue 13: places where the engine departed from an explicit sentence of the Loyang seed.

Each test quotes the sentence of `shared/seeds/004_2a38abc3904ab348.txt` it holds the engine to,
in Chinese and in English, and builds its position with the public scenario builder.
"""

from __future__ import annotations

from typing import Any

import pytest

from arena.render import Paint, final_lines
from arena.sdk.bots.loyang import LoyangHeuristic
from arena.sdk.local import play_local
from engines.loyang import LoyangRules
from engines.loyang.board import final_position
from engines.loyang.rounds import solo_rating
from engines.loyang.scenario import FieldSetup, ScenarioError, SeatSetup, scenario
from tests.loyang.support import FixedRng

RULES = LoyangRules()
HOME = (FieldSetup("home", "wheat", 5),)
PAY_ORDER = "「可立即透過銷售作物」「幫手協助或辦理借款」"
"""Money due 「may at once be raised by selling crops, using helpers or taking a loan」."""


def _act(state: Any, seat: int, wire: dict[str, Any]) -> Any:
    return RULES.apply(state, {seat: RULES.parse_action(seat, wire)}, FixedRng())


def _legal(state: Any, seat: int) -> list[dict[str, Any]]:
    return [RULES.dump_action(a) for a in RULES.legal_actions(state, seat).actions]  # type: ignore[attr-defined]


def _label(state: Any) -> str:
    decision = RULES.decision(state)
    assert decision is not None
    return decision.label


def _pays_by_selling_first(state: Any, seat: int) -> None:
    """At money due: selling comes before the loan, and selling pays it without a loan."""
    assert _label(state) == "pay"
    options = _legal(state, seat)
    assert options[0] == {"type": "sell", "crop": "bean"} and options[-1] == {"type": "loan"}
    state = _act(state, seat, options[0])
    me = state.players[seat]
    assert (me.due, me.loans) == (0, 0)


def test_a_field_kept_from_a_bought_pair_can_be_paid_by_selling_crops() -> None:
    # 「若玩家放置在自家遊戲圖板相鄰位置的為普通田地卡」「須支付2兩錢幣至公區(玩家可立即透過銷售
    # 作物、幫手協助或辦理借款等方式取得足夠金額錢幣進行支付)」: a common field placed costs 2
    # coins, which the player may raise at once by selling crops, helpers or a loan.
    me = SeatSetup(cash=0, cart={"bean": 1}, fields=HOME)
    state = scenario(2, players={0: me}, deck_top=("CF01", "H02"))
    state = _act(state, 0, {"type": "buy_pair"})  # free: no stall, no helper
    options = _legal(state, 0)
    assert {"type": "keep", "cards": ["CF01"]} in options
    assert {"type": "keep", "cards": ["CF01", "H02"]} in options
    assert {"type": "loan"} not in options  # a loan comes only once money is due, after sales
    state = _act(state, 0, {"type": "keep", "cards": ["CF01", "H02"]})
    _pays_by_selling_first(state, 0)


def test_a_field_taken_in_the_card_phase_can_be_paid_by_selling_crops() -> None:
    # The same sentence, where the card phase's option B places a common field.
    me = SeatSetup(cash=0, cart={"bean": 1}, fields=HOME, hand=("CF01", "H02"))
    other = SeatSetup(hand=("H03", "H04"))
    state = scenario(2, phase="card", players={0: me, 1: other}, courtyard=("MS01",))
    state = _act(state, 0, {"type": "take", "courtyard": "MS01", "hand": "CF01"})
    _pays_by_selling_first(state, 0)


def test_a_regular_customer_fine_can_be_paid_by_selling_crops() -> None:
    # 「滿意度標記為「壞」字面朝上時」「須支付公區2兩錢幣金額作為懲罰」 (a bad marker: pay a fine
    # of 2), raised like any money due.
    me = SeatSetup(cash=0, cart={"bean": 1}, fields=HOME, regulars=("RC02",), unhappy=("RC02",))
    state = scenario(2, players={0: me})
    state = _act(state, 0, {"type": "end_turn"})
    _pays_by_selling_first(state, 0)


def test_actions_a_to_g_any_number_of_times_leave_a_due_delivery_open() -> None:
    # 「A~G項行動執行時皆不限次數」: actions A-G may be taken any number of times.
    me = SeatSetup(cash=200, cart={"wheat": 2, "pumpkin": 2}, fields=HOME, regulars=("RC02",))
    state = scenario(2, players={0: me})
    for _ in range(40):  # 80 steps, far past any step limit
        state = _act(state, 0, {"type": "buy", "crop": "turnip"})
        state = _act(state, 0, {"type": "sell", "crop": "turnip"})
    assert {"type": "deliver", "customer": "RC02"} in _legal(state, 0)
    state = _act(state, 0, {"type": "deliver", "customer": "RC02"})
    assert state.players[0].regulars[0].rows == 1


@pytest.mark.parametrize(("options", "row"), [({}, 2), ({"solo_discard_row": 1}, 1)])
def test_solo_discards_the_rest_of_row_two(options: dict[str, Any], row: int) -> None:
    # 「將第2列剩下的所有卡牌丟置棄牌堆」: discard every card left in row 2 (option: row 1).
    me = SeatSetup(cash=10, fields=HOME)
    state = scenario(1, phase="card", players={0: me}, options=options)
    grid, before = state.grid, len(state.discard)
    state = _act(state, 0, {"type": "grid_buy", "row": 0, "col": 0})
    state = _act(state, 0, {"type": "grid_buy", "row": 1, "col": 0})
    assert state.discard[before:] == grid[3 * row - 2 : 3 * row]


@pytest.mark.parametrize(
    ("position", "rating"), [(16, "none"), (17, "excellent"), (18, "outstanding"), (22, "master")]
)
def test_solo_ratings(position: int, rating: str) -> None:
    # 「遊戲結束時」「玩家根據最後所得分數給予評價」「17分」「優秀 18分」「傑出 19分」「大師」.
    assert solo_rating(position) == rating


def test_a_solo_outcome_and_arena_play_report_the_rating() -> None:
    match = play_local("loyang", [LoyangHeuristic()], seed=3)
    rating = solo_rating(final_position(match.final.players[0]))
    assert match.outcome.rating == rating
    lines = final_lines(RULES, match.final, match.outcome, Paint(False))
    assert f"Rating: {rating}" in lines
    two = play_local("loyang", [LoyangHeuristic(), LoyangHeuristic()], seed=3)
    assert two.outcome.rating is None


def test_the_scenario_builder_refuses_impossible_positions() -> None:
    with pytest.raises(ScenarioError, match="card 'H01' is used twice"):
        scenario(2, players={0: SeatSetup(helpers=("H01",)), 1: SeatSetup(helpers=("H01",))})
    with pytest.raises(ScenarioError, match="'MS01' is a market_stall"):
        scenario(2, players={0: SeatSetup(helpers=("MS01",))})
    with pytest.raises(ScenarioError, match=r"holds 1\.\.2 crops, not 3"):
        scenario(2, players={0: SeatSetup(fields=(FieldSetup("CF01", "wheat", 3),))})
    with pytest.raises(ScenarioError, match="the storehouse holds 1"):
        scenario(2, players={0: SeatSetup(store={"wheat": 2})})
    with pytest.raises(ScenarioError, match="hands are empty in the action phase"):
        scenario(2, players={0: SeatSetup(hand=("H01",))})
    with pytest.raises(ScenarioError, match="round 10 is outside"):
        scenario(2, round=10)
