"""`arena test`: one-line refusals and the LLR bar."""

from __future__ import annotations

import pytest

from arena.cli.main import main
from arena.cli.versiontests import chart, estimate, lines, progress, summary
from arena.v1 import arena_pb2


def test_a_side_without_its_label_is_one_line_and_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["test", "start", "--game", "hart", "--candidate", "me@", "--baseline", "b"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "'me@' names no version" in err


def test_a_list_line_names_the_sides_status_and_owner() -> None:
    test = arena_pb2.VersionTest(
        test_id=7,
        game="hart",
        candidate="me@v2",
        baseline="me@v1",
        elo0=0,
        elo1=5,
        status=arena_pb2.VERSION_TEST_STATUS_H1,
        llr=3.1,
        lower_bound=-2.94,
        upper_bound=2.94,
        matches_counted=40,
        owner="ada",
    )
    test.created_at.FromJsonString("2026-12-02T07:30:00Z")
    line = summary(test)
    assert line.startswith("    7  hart") and "me@v2 vs me@v1" in line
    assert "H1 accepted" in line and "LLR +3.10 in [-2.94, 2.94]" in line
    assert line.endswith("40 matches counted; started 2026-12-02 07:30, by ada")


def test_elo1_must_exceed_elo0(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["test", "start", "--game", "hart", "--candidate", "a", "--baseline", "b"]
    assert main([*argv, "--elo0", "5", "--elo1", "5"]) == 2
    assert "must exceed --elo0" in capsys.readouterr().err


def test_the_bar_puts_the_llr_between_its_bounds() -> None:
    test = arena_pb2.VersionTest(
        test_id=4,
        game="hart",
        candidate="a",
        baseline="b",
        seats=2,
        llr=2.944,
        lower_bound=-2.944,
        upper_bound=2.944,
        matches_counted=6,
        elo=12.5,
        elo_low=-3.0,
        elo_high=30.0,
        status=arena_pb2.VERSION_TEST_STATUS_H1,
    )
    test.sets.add(set_no=0, status=arena_pb2.VERSION_TEST_SET_STATUS_COUNTED, match_ids=[7, 8])
    bar = progress(test)
    assert bar.split("[")[1].split("]")[0].endswith("*")
    assert "|" in bar and "1 sets (6 matches) counted" in bar
    assert estimate(test) == "Elo +12.5 (95% interval -3.0 .. +30.0)"
    assert any("matches 7, 8" in line for line in lines(test))
    assert "H1 accepted" in lines(test)[1]


def test_the_chart_puts_each_set_between_the_bounds() -> None:
    drawn = chart([0.0, 1.5, 3.0, -4.0], -2.944, 2.944, rows=5)
    assert drawn[0] == "  H1 +2.94 |  * |"
    assert drawn[4] == "  H0 -2.94 |   *|" and drawn[1].endswith("| *  |")
    assert drawn[2].endswith("|*   |") and "sets 1..4" in drawn[5]
    assert chart([], -1, 1) == []
