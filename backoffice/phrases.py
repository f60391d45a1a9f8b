"""Text that is stored and read later, worded when it is read, in the reader's language.

A row that records something for people to read later (a ticket's timeline entry, a
notification's title, a go-live check) stores a message key and its parameters, not words:
the words are chosen when the row is shown, through Django's translation machinery, in the
language of whoever reads it (Zendesk's and Stripe's event logs work so). A row written before
keys existed keeps its stored text; `render` shows that text as-is when the key is empty or
unknown, or when its parameters no longer fit the phrase.

Each app keeps its own catalogue (a dict of key -> Phrase) beside the code that writes the
rows, so a writer and the words it needs are reviewed together.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils import translation
from django.utils.functional import Promise
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

Labeller = Callable[[Any], str]


@dataclass(frozen=True)
class Phrase:
    # A lazily translated text with %(name)s placeholders, one per parameter it shows.
    text: Promise | str
    # Parameters whose stored value is a code or a number that itself reads differently per
    # language (a status code -> its label): name -> how to word the stored value.
    labels: Mapping[str, Labeller] = field(default_factory=dict)


Catalogue = Mapping[str, Phrase]


def render(catalogue: Catalogue, key: str, params: Mapping[str, Any] | None, legacy: str) -> str:
    """The words for (key, params) in the active language, or `legacy` (the text stored before
    the row had a key) when the key is not in the catalogue or the parameters do not fit."""
    phrase = catalogue.get(key) if key else None
    if phrase is None:
        return legacy
    values = {
        name: phrase.labels[name](value) if name in phrase.labels else value
        for name, value in (params or {}).items()
    }
    try:
        return str(phrase.text) % values
    except (KeyError, TypeError, ValueError):
        return legacy


def render_html(
    catalogue: Catalogue,
    key: str,
    params: Mapping[str, Any] | None,
    legacy: str,
    *,
    code: frozenset[str] = frozenset(),
) -> SafeString:
    """`render` for a page: the values escaped, the parameters named in `code` (a version, an
    identifier) and any `quoted` span of the phrase set as code, so a reader — and a check
    for untranslated words — tells identifiers from words."""
    phrase = catalogue.get(key) if key else None
    if phrase is None:
        return _code_spans(escape(legacy))
    values: dict[str, Any] = {}
    for name, value in (params or {}).items():
        shown = phrase.labels[name](value) if name in phrase.labels else value
        if isinstance(shown, str):
            shown = format_html("<code>{}</code>", shown) if name in code else escape(shown)
        values[name] = shown
    try:
        return _code_spans(mark_safe(escape(str(phrase.text)) % values))  # noqa: S308
    except (KeyError, TypeError, ValueError):
        return _code_spans(escape(legacy))


def _code_spans(html: SafeString) -> SafeString:
    # Escaped text holds no backtick of markup: `…` is the phrase's own mark for a command.
    return mark_safe(re.sub(r"`([^`<>]+)`", r"<code>\1</code>", html))  # noqa: S308


def render_english(
    catalogue: Catalogue, key: str, params: Mapping[str, Any] | None, legacy: str = ""
) -> str:
    """The English words, whatever the active language: what a row keeps as its plain-text
    copy (exports, logs, the command line, a reader of the raw column)."""
    with translation.override("en"):
        return render(catalogue, key, params, legacy)


__all__ = ["Catalogue", "Labeller", "Phrase", "render", "render_english", "render_html"]
