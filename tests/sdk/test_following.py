"""A bot follows a match to its host only when all its unfinished matches are hosted there."""

from __future__ import annotations

from arena.sdk.addresses import Rotation
from arena.sdk.stream import Following
from arena.v1 import bot_pb2


def _host(match_id: int, referee: str) -> bot_pb2.MatchHost:
    return bot_pb2.MatchHost(match_id=match_id, referee=referee, address=f"{referee}:50051")


def test_a_bot_with_no_other_match_moves_to_the_host() -> None:
    following = Following()
    following.referee = "a"
    assert following.move_to(_host(7, "b"), playing=set()) == "b:50051"


def test_a_bot_with_a_match_on_its_own_referee_stays() -> None:
    following = Following()
    following.referee = "a"
    # Match 3 was never named by a MatchHost: it is hosted where the stream is open.
    assert following.move_to(_host(7, "b"), playing={3}) == ""
    assert following.hosts == {7: "b"}, "where match 7 is hosted is noted all the same"


def test_a_bot_whose_matches_are_all_on_the_host_moves() -> None:
    following = Following()
    following.referee = "a"
    assert following.move_to(_host(7, "b"), playing={3}) == ""
    following.hosts[3] = "b"  # match 3 was taken over by b meanwhile
    assert following.move_to(_host(8, "b"), playing={3, 7}) == "b:50051"


def test_a_host_that_is_the_current_referee_or_has_no_address_keeps_the_stream() -> None:
    following = Following()
    following.referee = "a"
    assert following.move_to(_host(7, "a"), playing=set()) == ""
    assert following.move_to(bot_pb2.MatchHost(match_id=8, referee="b"), playing=set()) == ""


def test_the_rotation_goes_to_the_host_then_back_to_its_list_after_a_failure() -> None:
    rotation = Rotation(["a:1", "b:2"])
    rotation.move("c:3")
    assert rotation.current == "c:3"
    rotation.failed()
    assert rotation.current == "a:1", "a failed host sends the bot back where it was in its list"
    rotation.move("b:2")
    assert (rotation.current, rotation.visiting) == ("b:2", None), "a listed host is its entry"
