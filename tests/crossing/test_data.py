"""The board data file: the packaged one is valid and fully marked; malformed ones are rejected."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from engines.crossing import CrossingRules
from engines.crossing.data import BOARDS, PROPOSAL, load_board
from engines.errors import DataError, OptionsError
from tests.crossing.build import default_raw


def _broken(change: Callable[[dict[str, Any]], None]) -> str:
    raw = default_raw()
    change(raw)
    return json.dumps(raw)


def test_the_packaged_board_matches_the_seed_counts() -> None:
    board = BOARDS["board.json"]
    assert len(board.contracts) == 36 and len(board.companies) == 12
    assert sum(board.crew_count) == 55 and board.car_count == (6, 6, 6, 6)
    assert board.start_money == 150 and board.depot_refill == 10 and board.rack == 6
    assert not board.sourced, "no public transcription of the board exists: it must say so"
    kinds = [s.kind.value for s in board.spaces]
    assert kinds.count("corner_station") == 4 and kinds.count("trade") == 6


def test_every_value_is_marked_sourced_or_proposed() -> None:
    board = BOARDS["board.json"]
    sources = default_raw()["sources"]
    marks = {p.source for p in board.provenance}
    assert marks <= set(sources) | {f"D{i}" for i in range(1, 21)}
    assert "seed" in marks and "D4" in marks and "D5" in marks and "D6" in marks
    leaves = [p for p in board.provenance if p.path.startswith("$.cars.box")]
    assert {(p.path.rsplit(".", 1)[1], p.source) for p in leaves} == {
        ("count", "seed"),
        ("price", "D4"),
        ("faces", "seed"),
    }
    spaces = [p for p in board.provenance if p.path.startswith("$.spaces[")]
    assert sum(1 for p in spaces if p.path.endswith("]")) == 54
    assert {p.source for p in spaces if p.path.endswith(".amount")} == {"D3"}


def test_print_data_shows_the_provenance_of_every_value() -> None:
    lines = CrossingRules().print_data()
    assert "NOT SOURCED" in lines[0]
    assert any("$.cars.box.price = 10  [proposed (D4)]" in line for line in lines)
    assert any("$.money.start = 150  [sourced (seed)]" in line for line in lines)


def test_the_board_option_names_a_packaged_file() -> None:
    rules = CrossingRules()
    option = next(o for o in rules.options_schema if o.name == "board")
    assert option.choices == tuple(sorted(BOARDS)) and "board.json" in BOARDS
    with pytest.raises(OptionsError, match="board"):
        rules.resolve_options({"board": "/tmp/elsewhere.json"})


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(raw: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = raw
        for key in parents:
            node = node[int(key)] if key.isdigit() else node[key]
        if value is DELETE:
            del node[last]
        else:
            node[int(last) if last.isdigit() else last] = value

    return change


DELETE = object()

MALFORMED = [
    (_set("format", 2), "'format' must be 1"),
    (_set("money.start", DELETE), r"\$\.money: missing key 'start'"),
    (_set("money.start", 150), r"\$\.money\.start: expected dict, got 150"),
    (_set("money.start.src", "wiki"), r"\$\.money\.start\.src: 'wiki' is neither a key"),
    (_set("money.start.v", 152), r"\$\.money\.start: 152 must be >= 0 and a multiple of 5"),
    (_set("money.start.note", "x"), r"\$\.money\.start: unexpected key\(s\) \['note'\]"),
    (_set("crew.stop.v", 9), r"\$\.crew: the counts add up to 54, not the total 55"),
    (_set("cars.tank.faces.v", [5]), r"die face 5 is not 1\.\.6 or is used twice"),
    (_set("cars.tank.faces.v", []), r"die faces \[6\] name no car"),
    (_set("cars.caboose", {}), r"unknown car type\(s\) \['caboose'\]"),
    (_set("contracts.0.company", "Z"), r"\$\.contracts\[0\]\.company: 'Z' is not a company id"),
    (_set("contracts.1.id", "A1"), r"contract id 'A1' is used twice"),
    (_set("contracts.0.cars", {"box": 7}), r"needs 7 cars; a rack holds 1\.\.6"),
    (_set("contracts.0.price.v", 12), r"\$\.contracts\[0\]\.price: 12 must be"),
    (_set("spaces.3.kind", "teleporter"), r"\$\.spaces\[3\]\.kind: unknown kind 'teleporter'"),
    (_set("spaces.3.next", ["O99"]), r"\$\.spaces\[3\]\.next: 'O99' is not a space id"),
    (_set("spaces.4.amount", DELETE), r"\$\.spaces\[4\]: missing key 'amount'"),
    (_set("spaces.2.companies", ["A"]), r"companies \['B'\] have no TRADE space"),
    (_set("spaces.41.kind", "plain"), r"exactly one central_station space, found 0"),
    (_set("spaces.0.next", ["O1"]), r"cannot be reached from START"),
    (_set("limits.win_contracts.v", 40), r"\$\.limits\.win_contracts: 40 is outside \[1, 36\]"),
]


@pytest.mark.parametrize(("change", "message"), MALFORMED, ids=[m for _, m in MALFORMED])
def test_a_malformed_board_is_rejected_with_where_and_what(
    change: Callable[[dict[str, Any]], None], message: str
) -> None:
    with pytest.raises(DataError, match=message) as info:
        load_board(_broken(change), "bad.json")
    assert "board file 'bad.json'" in str(info.value)


def test_a_board_that_is_not_json_is_rejected() -> None:
    with pytest.raises(DataError, match=r"'bad\.json' is not valid JSON"):
        load_board("{nope", "bad.json")
    with pytest.raises(DataError, match="the top level must be an object"):
        load_board("[]", "bad.json")


def test_proposal_keys_are_d1_to_d20() -> None:
    assert all(PROPOSAL.match(f"D{i}") for i in range(1, 21))
    assert not any(PROPOSAL.match(k) for k in ("D0", "D21", "d4", "D4x"))
