"""What the inbox search box understands, and the Chinese (CJK) half of the search documents.

A ticket's search document (migrations 0008 and 0009) holds its subject, its customer's name
and e-mail, every message and, after them, the overlapping pairs of CJK characters of that
text: "退款没有到账" adds "退款 款没 没有 有到 到账". Chinese is written without spaces, so
neither FTS5 nor PostgreSQL's parser can find "退款" inside "退款没有到账" by words; by pairs,
any run of two or more characters is the phrase of its pairs ("没有到账" → "没有 有到 到账"),
found on the same index as the other words. A single character is not searchable.

`cjk_bigrams` is the one definition of those pairs: PostgreSQL has the same function in SQL
(`tickets_cjk_bigrams`, migrations 0009 and 0013); SQLite's triggers call this one,
registered on every connection (tickets.apps).
"""

from __future__ import annotations

import re

# Kana, CJK ideographs (extension A, unified, compatibility) and Hangul syllables. The same
# ranges are written in SQL in migrations 0009 and 0013; change both together.
CJK_CLASS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK = re.compile(f"[{CJK_CLASS}]")
_CJK_RUN = re.compile(f"[{CJK_CLASS}]+")
_WORD = re.compile(r"\w+")
# "#17" asks for ticket 17; "17" may be a ticket, an order or the end of a card number.
_HASH_NUMBER = re.compile(r"^#(\d{1,12})$")
_NUMBER = re.compile(r"^#?(\d{1,12})$")


def cjk_bigrams(text: str | None) -> str:
    """The overlapping pairs of CJK characters of `text`, in order, space separated."""
    if not text or not _CJK.search(text):
        return ""
    return " ".join(
        text[i : i + 2]
        for i in range(len(text) - 1)
        if _CJK.match(text[i]) and _CJK.match(text[i + 1])
    )


def ticket_number(search: str) -> int | None:
    """The ticket id that "#17" (with the hash) asks to open, else None."""
    match = _HASH_NUMBER.match(search.strip())
    return int(match.group(1)) if match else None


def number_in(search: str) -> int | None:
    """The number of a search that is only a number ("17" or "#17"): it may be a ticket id
    as well as a number in the text."""
    match = _NUMBER.match(search.strip())
    return int(match.group(1)) if match else None


def _split(search: str) -> tuple[str, list[list[str]]]:
    """The text outside CJK runs, and each CJK run of two or more characters as its pairs."""
    runs = [cjk_bigrams(run).split() for run in _CJK_RUN.findall(search)]
    return _CJK_RUN.sub(" ", search), [pairs for pairs in runs if pairs]


def fts5_query(search: str) -> str:
    """An FTS5 query: every word as a quoted phrase (no character typed is FTS5 syntax),
    each CJK run as the phrase of its pairs; all required. Empty when nothing is left."""
    rest, runs = _split(search)
    words = [f'"{word}"' for word in _WORD.findall(rest.lower())]
    return " ".join([*words, *(f'"{" ".join(pairs)}"' for pairs in runs)])


def websearch_query(search: str) -> str:
    """PostgreSQL's websearch_to_tsquery text: what was typed outside CJK runs as typed
    (quotes, "or", "-" keep their websearch meaning), each CJK run as a quoted phrase of its
    pairs. Empty when nothing searchable is left."""
    rest, runs = _split(search)
    phrases = [f'"{" ".join(pairs)}"' for pairs in runs]
    return " ".join(part for part in [rest.strip(), *phrases] if part)
