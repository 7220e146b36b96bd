"""The fast canonical JSON writes exactly what `json.dumps` writes, for every JSON value."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.protocol import canonical

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=40,
)


def standard(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@settings(max_examples=600)
@given(VALUES)
def test_any_json_value_gets_the_standard_text(value: Any) -> None:
    assert canonical.compact(value) == standard(value)


def test_the_values_orjson_writes_differently_or_refuses_get_the_standard_text() -> None:
    awkward = [
        {"small": 1e-05, "tiny": 1e-07, "big": 1e22, "huge": 1.5e300, "neg": -0.0},
        {"name": "é\u2028\U0001f600", "ctrl": '\x00\x1f\x7f\n\t"\\/'},
        {"ascii only": "\x01\x1f\x7f"},
        {1: "integer keys", 2: "are written as strings"},
        {"beyond 64 bits": 2**70, "negative": -(2**64)},
        ("a", "tuple"),
        [0.1, 2.5, 100.0, 1 / 3],
    ]
    for value in awkward:
        assert canonical.compact(value) == standard(value)


def test_nan_and_infinity_become_null_the_one_documented_difference() -> None:
    # json would write the invalid `NaN`; no engine view holds one (canonical's docstring).
    assert canonical.compact({"x": math.nan, "y": [math.inf]}) == '{"x":null,"y":[null]}'
