"""The vocabulary of the offline billing agent and customer: how emails, names, postcodes,
dates, amounts, merchant descriptors and card digits are written (the agent parses the
customer with these), the entities and verbs the customer's reader knows (`READER`), and the
approvers' decision times the policy states. Nothing but text passes between them."""

from __future__ import annotations

import re

from evals.engine.sandbox.agent import EMAIL  # noqa: F401  (vocab.EMAIL for both models)
from evals.engine.sandbox.vocab import first_match
from evals.engine.understanding import money
from evals.engine.understanding.utterances import EntityPattern, UtteranceReader

DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
# Names are capitalised ("This is so frustrating" names nobody).
NAME = re.compile(r"(?i:name is|i am|i'm|this is|我叫|名字是|我是)\s*([A-Z][a-z]+)\s+([A-Z][a-z]+)")
# A name said without a lead-in, beside a postcode ("postcode 40213... Ava Adler").
LOOSE_NAME = re.compile(r"(?<![A-Za-z*])([A-Z][a-z]+) ([A-Z][a-z]+)(?![A-Za-z*])")
POSTCODE = re.compile(r"(?:post ?code|zip(?: code)?|邮编)\D{0,12}?(\d{5})\b", re.I)
# A postcode said alone ("it's 40369, not 04369"): five digits that are not an amount.
BARE_POSTCODE = re.compile(rf"(?<![\d.])(\d{{5}})(?!\d|\.\d)(?!\s?(?:{'|'.join(money.CODES)}))")
MERCHANT = re.compile(r"\b([A-Z]{2,}\*[A-Z]+)\b")
LAST4 = re.compile(
    r"(?:ending(?: in)?|last (?:four|4) digits(?: are)?|尾号(?:是|为)?)\s*(\d{4})\b", re.I
)
SENTENCE = re.compile(
    r"(?<=[.!?;])\s+(?=[A-Z])|\s+(?:then|also|and also)\s+|(?<=[。！？；])\s*|(?:然后|另外)，?",
)
# "it's 40213, not 42013": the retracted value is dropped before parsing.
RETRACTED = re.compile(r"(?:\bnot\s+|不是\s*)\d{5}\b", re.I)

# (intent, pattern) in priority order: the first that matches a sentence names its intent.
INTENTS: list[tuple[str, re.Pattern[str]]] = [
    (
        "fraud",
        re.compile(
            r"don'?t recogni[sz]e|do not recogni[sz]e|someone (?:else )?used my card|card was (?:stolen|misused)"
            r"|不认识|不是我(?:消费|买)|盗刷|被盗用",
            re.I,
        ),
    ),
    ("repeat", re.compile(r"\bagain\b|once more|再提交一次|再申请一次|再提交", re.I)),
    (
        "email",
        re.compile(
            r"e-?mail (?:address )?(?:on|of) my account|change my e-?mail|邮箱改|更改.{0,6}邮箱|修改.{0,6}邮箱",
            re.I,
        ),
    ),
    (
        "refund",
        re.compile(r"refund|money back|charged|\bcharge of\b|退款|退还|退回|扣了|扣款", re.I),
    ),
]

# The approvers' decision times, as the policy states them.
DECISION_DAYS = {"Nadia Brooks": 2, "Tom Becker": 5}
TRANSFER = "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON."


# What the customer reads in an agent's message beyond the core entities (whose money is read
# with each currency's own decimals, KWD and BHD included: `evals.engine.understanding.money`).
ENTITIES = (
    EntityPattern("charge_id", re.compile(r"(?<![A-Za-z0-9])(CH-\d{6})(?!\d)")),
    EntityPattern("customer_id", re.compile(r"(?<![A-Za-z0-9-])(C\d{5})(?!\d)")),
)
READER = UtteranceReader(entities=ENTITIES)


def clean(text: str) -> str:
    return RETRACTED.sub(" ", text)


def intent_of(sentence: str) -> str:
    return first_match(INTENTS, sentence)


def moneys(text: str) -> list[tuple[str, str]]:
    """Every amount in `text`, as (decimal string, currency), in order."""
    return money.amounts(text)
