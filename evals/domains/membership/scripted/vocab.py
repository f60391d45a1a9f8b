"""The vocabulary of the offline membership agent and member: how member numbers, dates of
birth, emails, plans, months and amounts are written (the agent parses the member with these),
the entities and verbs the member's reader knows (`READER`), and the reference agent's original
questions (its every sentence, in each wording, is in phrasings.py). Nothing but text passes
between them."""

from __future__ import annotations

import re

from evals.engine.sandbox.agent import EMAIL  # noqa: F401  (vocab.EMAIL for both models)
from evals.engine.sandbox.vocab import first_match
from evals.engine.understanding.utterances import EntityPattern, UtteranceReader

MEMBER_NUMBER = re.compile(r"\b(M\d{6})\b")
DOB = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
PLAN = re.compile(r"\b(basic|plus|premium)\b", re.IGNORECASE)
MONTHS = re.compile(
    r"\b([1-9]|one|two|three) months?\b|(?<!\d)([1-9]|[一二两三]) ?个月", re.IGNORECASE
)
AMOUNT = re.compile(r"\b(\d+(?:\.\d{2,3})?)\s*(USD|EUR|GBP|JPY)\b")
MONTH_NAMES = {
    "january": "01",
    "february": "02",
    "march": "03",
    "april": "04",
    "may": "05",
    "june": "06",
    "july": "07",
    "august": "08",
    "september": "09",
    "october": "10",
    "november": "11",
    "december": "12",
}
MONTH = re.compile(r"\b(" + "|".join(MONTH_NAMES) + r")\b", re.IGNORECASE)
SENTENCE = re.compile(
    r"(?<=[.!?;])\s+|\s+(?:then|also|and also)\s+|(?<=[。！？；])\s*|(?:然后|另外)，?",
    re.IGNORECASE,
)
# "it's 1988-04-12, not 1988-12-04": the retracted value is dropped before parsing.
RETRACTED = re.compile(
    r"(?:\bnot\s+|不是+\s*)(?:M\d{6}|\d{4}-\d{2}-\d{2}|[1-9] months?|[1-9] ?个月)", re.IGNORECASE
)
WORD_NUMBERS = {"one": 1, "two": 2, "three": 3, "一": 1, "二": 2, "两": 2, "三": 3}
# An invoice month written as a number ("6 月"), not a duration ("6 个月").
MONTH_NUMBER = re.compile(r"(?<!\d)(1[0-2]|[1-9]) ?月")

# (intent, pattern) in priority order: the first that matches a sentence names its intent.
INTENTS: list[tuple[str, re.Pattern[str]]] = [
    (
        "dispute",
        re.compile(
            r"\bdisput|\bcontest|want (?:someone|a person|a human) to review|异议|争议|申诉|复核",
            re.I,
        ),
    ),
    ("balance", re.compile(r"how many|how much .* left|remaining|还剩|剩余|剩下", re.I)),
    ("waive", re.compile(r"\bwaive|免除|免掉|减免", re.I)),
    (
        "refund",
        re.compile(
            r"refund|charged (?:me )?twice|double.?charged|charged .*(?:drop-in|class)"
            r"|退款|退还|扣了两次|重复扣",
            re.I,
        ),
    ),
    ("unfreeze", re.compile(r"unfreeze|reactivate|end (?:my|the) freeze|解冻", re.I)),
    ("freeze", re.compile(r"\bfreeze|\bpause|冻结|暂停", re.I)),
    ("cancel", re.compile(r"\bcancel|取消", re.I)),
    (
        "plan_change",
        re.compile(
            r"upgrade|downgrade|switch|change (?:my |the )?plan|move to|升级|降级|换成|换到", re.I
        ),
    ),
]
NO_FEE = re.compile(
    r"without (?:a|any|the) fee|won'?t pay (?:a|any)|no fee|not pay (?:a|any)"
    r"|不会付|不付|都不付|免费取消",
    re.I,
)
LATE_FEE = re.compile(r"late fee|滞纳金", re.I)
DUPLICATE = re.compile(r"twice|double|duplicate|两次|重复", re.I)
CLASS = re.compile(r"\bclass|drop-in|团课|单次课", re.I)
GUEST = re.compile(r"guest|访客", re.I)
PT = re.compile(r"personal.training|\bPT\b|training session|私教", re.I)

# The reference agent's original questions.
ASK_IDENTITY = (
    "Before I can help, I need to verify your identity. Could you give me the email address "
    "of your account, or your member number and date of birth?"
)
EXPLAIN_IDENTITY = (
    "I need to verify who you are before I can look at or change anything on your membership; "
    "that protects your account and your money."
)
ASK_PLAN = "Which plan would you like: Basic, Plus or Premium?"
ASK_MONTHS = "For how many months would you like to freeze the membership (1 to 3)?"
ASK_CHARGE = "Which charge do you mean? Please tell me the invoice month and what was charged."
ASK_BALANCE = "Which entitlement do you mean: classes, guest passes or personal-training sessions?"
ANYTHING_ELSE = "Is there anything else I can help you with?"
HOW_CAN_I_HELP = "How can I help you today?"
TRANSFER = "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON."


# What the member reads in an agent's message beyond the core entities: membership's bare
# identifiers, its plans (capitalised, or named as a plan) and its entitlements.
PLAN_NAMES = {
    "Basic": "basic",
    "Plus": "plus",
    "Premium": "premium",
    "基础版": "basic",
    "进阶版": "plus",
    "高级版": "premium",
}
PLAN_PATTERN = re.compile(
    r"(?<![A-Za-z])(Basic|Plus|Premium)(?![A-Za-z])"
    r"|(?<![A-Za-z])(?i:(basic|plus|premium))(?= (?:plan|tier|membership))"
    r"|(基础版|进阶版|高级版)"
)
ENTITIES = (
    EntityPattern("membership_id", re.compile(r"(?<![A-Za-z0-9])(MS\d{6})(?!\d)")),
    EntityPattern("member_id", re.compile(r"(?<![A-Za-z0-9])(M\d{6})(?!\d)")),
    EntityPattern("invoice_id", re.compile(r"(?<![A-Za-z0-9])(INV-\d{6}-\d{2})(?!\d)")),
    EntityPattern("plan", PLAN_PATTERN, lambda s: PLAN_NAMES.get(s, s.lower())),
    EntityPattern.terms(
        "entitlement",
        {
            "guest_pass": ("guest pass", "guest passes", "访客券", "访客通行证", "嘉宾券"),
            "pt_session": (
                "personal-training session",
                "personal-training sessions",
                "personal training session",
                "personal training sessions",
                "PT session",
                "PT sessions",
                "私教课",
                "私人教练课",
            ),
            "classes": ("class", "classes", "class pack", "团课", "课程"),
        },
    ),
)
# Membership's verbs the core reader does not know.
ACTIONS = {
    "unfreeze": r"unfreez|reactivat|解冻",
}
READER = UtteranceReader(entities=ENTITIES, actions=ACTIONS)


def clean(text: str) -> str:
    return RETRACTED.sub(" ", text)


def intent_of(sentence: str) -> str:
    return first_match(INTENTS, sentence)


def months_in(text: str) -> int:
    m = MONTHS.search(clean(text))
    if not m:
        return 0
    raw = (m.group(1) or m.group(2)).lower()
    return WORD_NUMBERS.get(raw) or int(raw)


def period_in(text: str) -> str:
    m = MONTH.search(text)
    if m:
        return f"2025-{MONTH_NAMES[m.group(1).lower()]}"
    number = MONTH_NUMBER.search(text)
    return f"2025-{int(number.group(1)):02d}" if number else ""
