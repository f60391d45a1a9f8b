"""The database's `tickets_cjk_bigrams` (SQL on PostgreSQL since migration 0013, the Python
function registered on each SQLite connection) gives exactly tickets.search.cjk_bigrams:
the search documents the triggers write are searched with queries built in Python."""

from __future__ import annotations

import random

import pytest
from django.db import connection

from tickets.search import cjk_bigrams

pytestmark = pytest.mark.django_db

CASES = [
    "退款没有到账",
    "a退款没有到账 b 包裹x还没",
    "order 退款 ok 到",  # a lone character makes no pair
    "到",
    "",
    "no chinese at all",
    "カタカナとひらがな",  # kana
    "환불이 안 됐어요",  # Hangul
    "退款。没有到账",  # full-width punctuation ends a run
    "退款🙂没有",  # so does an emoji
    "W12345退款W12345没有到账W",
    "發票抬頭寫錯了",  # traditional
    "\uf900\uf901 \u3400\u3401",  # compatibility ideographs, extension A
]


def _sql(text: str | None) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT tickets_cjk_bigrams(%s)", [text])
        return str(cursor.fetchone()[0])


@pytest.mark.parametrize("text", CASES)
def test_the_database_pairs_cjk_characters_as_python_does(text: str) -> None:
    assert _sql(text) == cjk_bigrams(text)


def test_a_null_document_has_no_pairs() -> None:
    assert _sql(None) == ""


def test_random_mixed_text_gives_the_same_pairs() -> None:
    """Runs of every length at every place, next to Latin, digits, spaces and punctuation."""
    alphabet = list("退款没有到账包裹カナ환불") + list("ab 1。,🙂\n")
    rng = random.Random(15)
    for _ in range(200):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
        assert _sql(text) == cjk_bigrams(text), text
