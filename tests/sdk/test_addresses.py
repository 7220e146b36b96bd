"""What `Bot.run` and `--address` accept as referee addresses, and the order a bot tries them in."""

from __future__ import annotations

from datetime import timedelta

import pytest

from arena.sdk import AddressError, parse_addresses
from arena.sdk.addresses import (
    FIRST_BACKOFF,
    KEEPALIVE,
    MAX_BACKOFF,
    ROUND_ROBIN,
    Rotation,
    channel_options,
)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("localhost:50051", ["localhost:50051"]),
        ("a:1,b:2", ["a:1", "b:2"]),
        (" a:1 , b:2 ", ["a:1", "b:2"]),
        (["ref-a:50051", "10.0.0.2:50051"], ["ref-a:50051", "10.0.0.2:50051"]),
        ("[::1]:50051,127.0.0.1:50051", ["[::1]:50051", "127.0.0.1:50051"]),
        ("dns:///referees.internal:50051", ["dns:///referees.internal:50051"]),
        # A gRPC target is passed to gRPC whole, commas and all.
        ("ipv4:10.0.0.1:50051,10.0.0.2:50051", ["ipv4:10.0.0.1:50051,10.0.0.2:50051"]),
        ("unix:/run/arena.sock", ["unix:/run/arena.sock"]),
    ],
)
def test_addresses_parse_into_the_list_a_bot_tries(
    given: str | list[str], expected: list[str]
) -> None:
    assert parse_addresses(given) == expected


@pytest.mark.parametrize(
    ("given", "complaint"),
    [
        ("", "no referee address"),
        ([], "no referee address"),
        ("a:1,,b:2", "empty address in 'a:1,,b:2'"),
        ("a:1,", "empty address"),
        (["a:1", " "], "empty address"),
        ("a:1,b:x", "'b:x' has a bad port 'x'"),
        ("a:1,b:0", "bad port '0'"),
        ("a:65536", "bad port '65536'"),
        ("a:1,b", "'b' is not HOST:PORT"),
        (":50051", "is not HOST:PORT"),
        ("::1:50051", "write an IPv6 host as [::1]:50051"),
    ],
)
def test_a_malformed_list_is_refused_with_the_element_at_fault(
    given: str | list[str], complaint: str
) -> None:
    with pytest.raises(AddressError, match=complaint.replace("[", r"\[").replace("]", r"\]")):
        parse_addresses(given)


def test_only_targets_that_can_name_several_referees_balance_round_robin() -> None:
    assert channel_options("dns:///referees:50051") == (*KEEPALIVE, *ROUND_ROBIN)
    assert channel_options("ipv4:10.0.0.1:1,10.0.0.2:1") == (*KEEPALIVE, *ROUND_ROBIN)
    assert channel_options("localhost:50051") == KEEPALIVE
    assert "round_robin" in ROUND_ROBIN[0][1]


def test_a_failure_moves_to_the_next_referee_at_once_and_backs_off_per_failed_round() -> None:
    rotation = Rotation(["a:1", "b:2", "c:3"])
    assert rotation.current == "a:1"
    pauses = []
    for expected_next in ["b:2", "c:3", "a:1", "b:2", "c:3", "a:1"]:
        pauses.append(rotation.failed())
        assert rotation.current == expected_next
    # The first round tries every other referee after ~100 ms (jitter: x0.5 to x1.5) ...
    assert all(FIRST_BACKOFF * 0.5 <= p <= FIRST_BACKOFF * 1.5 for p in pauses[:3])
    # ... the next round, when all of them failed, waits twice as long.
    assert all(FIRST_BACKOFF <= p <= FIRST_BACKOFF * 3 for p in pauses[3:])
    for _ in range(100):
        assert rotation.failed() <= MAX_BACKOFF * 1.5
    # A Welcome starts afresh: the next failure leaves for the next referee within ~100 ms.
    rotation.connected()
    assert rotation.failed() <= FIRST_BACKOFF * 1.5


def test_a_single_referee_is_retried_with_doubling_backoff() -> None:
    rotation = Rotation(["only:1"])
    first, second, third = (rotation.failed() for _ in range(3))
    assert rotation.current == "only:1"
    assert first <= FIRST_BACKOFF * 1.5 < FIRST_BACKOFF * 2 <= third
    assert second >= FIRST_BACKOFF
    assert timedelta(0) < first
