"""The state difference a failing trial shows skips the parts of the two states that are equal
(a τ² database is thousands of records, and a trial changes a few): its lines must be exactly
those of flattening both states whole and comparing leaf by leaf."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from evals.engine.world import _flatten, diff, leaf_differences

LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["a", "b", ""]))
KEYS = st.sampled_from(["a", "b", "c", "#W1", "x.y"])
STATES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=20,
)


def whole_flatten_diff(expected: dict[str, Any], actual: dict[str, Any], limit: int) -> list[str]:
    """Both states flattened whole, every leaf compared: what `diff` did before it skipped
    the equal subtrees."""
    a: dict[str, Any] = {}
    b: dict[str, Any] = {}
    _flatten(dict(expected), "", a)
    _flatten(dict(actual), "", b)
    return leaf_differences(a, b, limit)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(KEYS, STATES, max_size=4), st.dictionaries(KEYS, STATES, max_size=4))
def test_the_difference_equals_the_whole_flattened_comparison(expected, actual) -> None:
    assert diff(expected, actual, limit=5) == whole_flatten_diff(expected, actual, 5)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(KEYS, STATES, min_size=1, max_size=4))
def test_a_state_against_a_changed_copy_names_only_the_change(state) -> None:
    changed = {**state, "zz": {"status": "cancelled"}}
    assert diff(state, changed) == ["zz.status: unexpected 'cancelled'"]
    assert diff(state, state) == []
