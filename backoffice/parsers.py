"""The API's JSON parser: DRF's, with limits on what a hostile body can make the server do.

- Nesting deeper than API_JSON_MAX_DEPTH (default 32) is refused: 100000 times `[` made the
  standard parser raise RecursionError (a 500), and a few hundred levels that it did parse
  would fail later in code that walks the value (the audit trail's canonical JSON stops at
  255) — no request needs more than a handful of levels.
- A NUL character in any string (key or value) is refused: PostgreSQL text cannot hold it
  and answers DataError (a 500); SQLite would store it. Refused on both, so the API behaves
  the same on either database.

Both answer 400 with the JSON error shape (ParseError through the exception handler).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

DEFAULT_MAX_DEPTH = 32


def max_depth() -> int:
    return int(getattr(settings, "API_JSON_MAX_DEPTH", DEFAULT_MAX_DEPTH))


def check_value(value: Any, *, limit: int) -> None:
    """Raise ParseError if `value` nests deeper than `limit` or holds a NUL in a string.
    Iterative (an explicit stack), so the check itself cannot exhaust the Python stack."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                raise ParseError(_("JSON strings may not contain the NUL character."))
            continue
        if isinstance(item, Mapping):
            children: list[Any] = [*item.keys(), *item.values()]
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            raise ParseError(_("JSON nested deeper than %(limit)d levels.") % {"limit": limit})
        stack.extend((child, depth + 1) for child in children)


class SafeJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            # The C scanner recurses once per level; past the interpreter's limit it raises
            # before returning anything, so nothing was built.
            raise ParseError(
                _("JSON nested deeper than %(limit)d levels.") % {"limit": max_depth()}
            ) from None
        check_value(data, limit=max_depth())
        return data
