"""Walking nested test data."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


def leaves(value: Any) -> Iterator[str]:
    """Every scalar inside nested mappings, lists and tuples, as text (None left out)."""
    if isinstance(value, Mapping):
        for v in value.values():
            yield from leaves(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from leaves(v)
    elif value is not None:
        yield str(value)
