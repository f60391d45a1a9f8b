# ruff: noqa: RUF001 -- Chinese agent messages use full-width punctuation on purpose.
"""The reader of agent messages (evals.engine.understanding.utterances): a labelled corpus of
agent utterances in English and Chinese, written independently of the reference agents'
phrasing, and the hard cases one by one.

Corpus lines (tests/evals_engine/data/utterances.jsonl): `text`, `lang`, `acts` and
`entities` (kind -> normalised values, every entity the message names). An act is written
`kind[:action][/slot,slot][|option;option][+reason]`; slots compare as sets, options by
containment of their comparable form (`option_key`), `+reason` says a refusal gives one."""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evals.domains.membership.scripted import vocab as membership_vocab
from evals.domains.retail.scripted.phrasings import PHRASINGS
from evals.engine.understanding.utterances import (
    Act,
    ActKind,
    EntityPattern,
    UtteranceReader,
    entities,
    lexicon,
    option_key,
)
from evals.engine.understanding.utterances.gate import Gate, GatedNames, required

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).with_name("data") / "utterances.jsonl"
THRESHOLD = 0.98

ITEMS = (
    "water bottle", "backpack", "desk lamp", "running shoes", "t-shirt", "headphones",
    "coffee maker", "yoga mat", "kettle", "hiking boots", "水杯", "保温杯", "背包", "台灯",
    "跑鞋", "t恤", "耳机", "咖啡机", "瑜伽垫", "水壶", "登山靴",
)  # fmt: skip
PLANS = {"Basic": "basic", "Plus": "plus", "Premium": "premium", "基础版": "basic", "进阶版": "plus", "高级版": "premium"}  # fmt: skip
# What the retail, membership and τ² mock domains would register: their bare identifiers and
# their closed lists.
DOMAIN = (
    EntityPattern(
        "order_id",
        re.compile(r"(?<![A-Za-z0-9])(#?W\d{7})(?!\d)"),
        lambda s: "#" + s.lstrip("#").upper(),
    ),
    EntityPattern("membership_id", re.compile(r"(?<![A-Za-z0-9])(MS\d{6})(?!\d)")),
    EntityPattern("member_id", re.compile(r"(?<![A-Za-z0-9])(M\d{6})(?!\d)")),
    EntityPattern("invoice_id", re.compile(r"(?<![A-Za-z0-9])(INV-\d{6}-\d{2})(?!\d)")),
    EntityPattern("task_id", re.compile(r"(?<![A-Za-z0-9])(task_\d+)(?!\d)")),
    EntityPattern("user_id", re.compile(r"(?<![A-Za-z0-9])(user_\d+)(?!\d)")),
    EntityPattern.terms("item", {name: () for name in ITEMS}),
    EntityPattern(
        "plan",
        re.compile(r"(?<![A-Za-z])(Basic|Plus|Premium)(?![A-Za-z])|(基础版|进阶版|高级版)"),
        PLANS.__getitem__,
    ),
)
READER = UtteranceReader(entities=DOMAIN)
RETAIL_WORDS = PHRASINGS["en"]  # the retail reference agent's wording
PLAIN = UtteranceReader()
SPEC = re.compile(r"^(\w+)(?::(\w*))?(?:/([\w,]+))?(?:\|([^+]+))?(\+reason)?$")


@pytest.fixture(autouse=True)
def _roles() -> None:
    """Pure Python: no database, so the root conftest's role sync is skipped."""


@dataclass(frozen=True)
class Expected:
    kind: str
    action: str
    slots: frozenset[str]
    options: tuple[str, ...]
    reason: bool

    @classmethod
    def parse(cls, spec: str) -> Expected:
        m = SPEC.match(spec)
        assert m, f"bad act label {spec!r}"
        options = tuple(option_key(o) for o in (m[4] or "").split(";") if o)
        slots = frozenset(s for s in (m[3] or "").split(",") if s)
        return cls(m[1], m[2] or "", slots, options, bool(m[5]))

    def matches(self, act: Act) -> bool:
        if (self.kind, self.action, self.slots) != (act.kind.value, act.action, set(act.slots)):
            return False
        if self.kind == "refuse" and self.reason != bool(act.reason):
            return False
        if len(self.options) != len(act.options):
            return False
        return all(any(o in got or got in o for got in act.options) for o in self.options)


def label(act: Act) -> str:
    out = act.kind.value + (f":{act.action}" if act.action else "")
    out += "/" + ",".join(act.slots) if act.slots else ""
    out += "|" + ";".join(act.options) if act.options else ""
    return out + ("+reason" if act.reason else "")


def acts_match(expected: list[Expected], acts: tuple[Act, ...]) -> bool:
    rest = list(acts)
    for e in expected:
        hit = next((a for a in rest if e.matches(a)), None)
        if hit is None:
            return False
        rest.remove(hit)
    return not rest


def corpus() -> list[dict]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]


def report(misses: list[str], total: int, what: str) -> float:
    """Accuracy; every miss is listed (as a warning when the test passes, so it shows in the
    run's summary either way)."""
    accuracy = (total - len(misses)) / total
    for miss in misses:
        warnings.warn(f"utterance corpus, {what} miss: {miss}", stacklevel=2)
    return accuracy


def test_the_corpus_is_big_enough_and_covers_every_kind_in_both_languages():
    rows = corpus()
    assert len(rows) >= 300
    assert sum(r["lang"] == "zh" for r in rows) >= 100
    for lang in ("en", "zh"):
        kinds = {Expected.parse(a).kind for r in rows if r["lang"] == lang for a in r["acts"]}
        assert kinds == {k.value for k in ActKind}, (lang, {k.value for k in ActKind} - kinds)
    labelled = {k for r in rows for k in r["entities"]}
    assert {"order_id", "money", "date", "duration", "email", "address"} <= labelled


def test_the_reader_gets_the_acts_and_slots_of_the_corpus():
    rows = corpus()
    misses = []
    for r in rows:
        reading = READER.read(r["text"])
        if not acts_match([Expected.parse(a) for a in r["acts"]], reading.acts):
            got = [label(a) for a in reading.acts]
            misses.append(f"{r['id']} {r['text']!r}: want {r['acts']}, got {got}")
    accuracy = report(misses, len(rows), "act")
    assert accuracy >= THRESHOLD, f"acts {accuracy:.3f}:\n" + "\n".join(misses)


def test_the_reader_finds_the_entities_of_the_corpus():
    rows = corpus()
    misses = []
    for r in rows:
        found: dict[str, set[str]] = {}
        for e in READER.read(r["text"]).entities:
            found.setdefault(e.kind, set()).add(e.value)
        want = {k: set(v) for k, v in r["entities"].items()}
        if found != want:
            misses.append(f"{r['id']} {r['text']!r}: want {want}, got {found}")
    accuracy = report(misses, len(rows), "entity")
    assert accuracy >= THRESHOLD, f"entities {accuracy:.3f}:\n" + "\n".join(misses)


def kinds(text: str) -> list[str]:
    return [label(a) for a in READER.read(text).acts]


# -- hard cases -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Is there nothing else you need?", ["closing"]),
        ("Don't you have the order number handy?", ["ask/order_id"]),
        ("Can't you find the confirmation email with the order ID?", ["ask/order_id"]),
        ("Shouldn't I go ahead and cancel it, then?", ["confirm:cancel"]),
        ("You don't want me to cancel it, right?", ["confirm:cancel"]),
        ("您手头没有订单号吗？", ["ask/order_id"]),
        ("不需要我帮您取消这个订单吗？", ["confirm:cancel"]),
        ("没有别的问题了吧？", ["closing"]),
    ],
)
def test_a_negated_question_is_still_the_question_it_asks(text, expected):
    assert kinds(text) == expected


def test_it_reads_not_found_and_a_recheck_request_not_a_refusal():
    reading = READER.read("I can't find that order — could you check the number?")
    assert [label(a) for a in reading.acts] == ["not_found/order_id", "ask/order_id"]
    assert not reading.has(ActKind.REFUSE)


def test_a_summary_and_go_ahead_inside_a_bullet_list_is_one_proposal_with_its_entities():
    reading = READER.read(
        "Here's the plan:\n"
        "- Cancel order #W2201845 (ordered by mistake)\n"
        "- Refund $89.97 to your original card\n"
        "- Shall I go ahead?"
    )
    assert [label(a) for a in reading.acts] == ["confirm:cancel"]
    confirm = reading.first(ActKind.CONFIRM)
    assert confirm is not None
    assert confirm.values("order_id") == ("#W2201845",)
    assert confirm.values("money") == ("89.97 USD",)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("订单已取消还有其他需要帮忙的吗", ["done:cancel", "closing"]),
        ("查不到您说的这个订单麻烦再核对一下订单号", ["not_found/order_id", "ask/order_id"]),
        ("您好这边需要先验证身份请提供邮箱", ["verify/email"]),
        ("我帮您取消订单W7730146可以吗", ["confirm:cancel"]),
        ("这单没法退已经超过三十天了", ["refuse+reason"]),
    ],
)
def test_it_reads_chinese_without_punctuation(text, expected):
    assert kinds(text) == expected


def test_several_acts_in_one_message_come_in_order():
    assert kinds("Done: order cancelled. Anything else?") == ["done:cancel", "closing"]
    assert kinds("Sorry, I can't do that. Anything else?") == ["refuse", "closing"]


def test_a_condition_or_a_prerequisite_is_not_a_refusal():
    assert not READER.read("If you can't find the order number, your email works too.").has(
        ActKind.REFUSE
    )
    reading = READER.read("I'm unable to look at orders until your identity is confirmed.")
    assert not reading.has(ActKind.REFUSE)
    assert reading.has(ActKind.EXPLAIN)


def test_a_refusal_keeps_its_reason_even_in_the_next_sentence():
    refusal = READER.read(
        "I'm afraid a downgrade isn't possible yet. You're still in your commitment."
    )
    act = refusal.first(ActKind.REFUSE)
    assert act is not None and act.action == "downgrade"
    assert "commitment" in act.reason
    bare = READER.read("Sorry, I can't do that.").first(ActKind.REFUSE)
    assert bare is not None and bare.reason == ""


def test_a_yes_no_question_about_a_value_already_given_is_a_check_not_a_request():
    assert kinds("Is 94107 the ZIP on your account?") == ["check"]
    assert kinds("What's the ZIP on your account?") == ["verify/zip"]
    assert kinds("What ZIP should we ship it to? Include the street too.") == ["ask/address"]


def test_a_choice_names_its_slot_and_options():
    reading = READER.read(
        "Do you want the refund on your original payment method or your gift card?"
    )
    choice = reading.first(ActKind.CHOICE)
    assert choice is not None
    assert choice.slots == ("refund_method",)
    assert choice.options == ("original payment method", "gift card")
    which = READER.read("I see two orders, #W1180456 and #W1180477. Which one do you mean?")
    assert [label(a) for a in which.acts] == ["choice/order_id|#w1180456;#w1180477"]


def test_a_customer_side_step_names_the_action_and_what_to_act_on():
    step = READER.read("Please switch your phone off, wait ten seconds, and switch it back on.")
    assert [label(a) for a in step.acts] == ["user_step:restart/phone"]
    toggle = READER.read("麻烦打开再关闭一次飞行模式，然后看看移动数据能不能用。")
    assert [label(a) for a in toggle.acts] == ["user_step:toggle/airplane_mode,mobile_data"]


def test_money_is_normalised_to_amount_and_iso_currency():
    text = "Totals: $1,299.00, €12.50, 45 USD, £9.99, ¥3000, 20 bucks."
    assert PLAIN.read(text).values("money") == (
        "1299.00 USD", "12.50 EUR", "45.00 USD", "9.99 GBP", "3000 JPY", "20.00 USD",
    )  # fmt: skip
    assert PLAIN.read("退款20元，另收￥5，合计二十五元，外加10美元").values("money") == (
        "20.00 CNY", "5.00 CNY", "25.00 CNY", "10.00 USD",
    )  # fmt: skip


def test_dates_times_and_durations_are_normalised():
    reading = PLAIN.read(
        "Moved to March 14 at 3pm, then 2025-06-02 10:30; refund within 5–7 business days, "
        "freeze for two months, 下周一下午3点半，三十天内。"
    )
    assert reading.values("date") == ("03-14", "2025-06-02", "next monday")
    assert reading.values("time") == ("15:00", "10:30", "15:30")
    assert reading.values("duration") == ("P5D..P7D", "P2M", "P30D")


def test_a_domain_pattern_wins_over_the_core_keyword_id():
    assert PLAIN.read("Cancel order W1234567?").values("order_id") == ("W1234567",)
    assert READER.read("Cancel order W1234567?").values("order_id") == ("#W1234567",)
    assert READER.read("订单W1234567已取消").values("order_id") == ("#W1234567",)


def test_terms_match_whole_words_only():
    terms = UtteranceReader(entities=(EntityPattern.terms("item", {"backpack": ("rucksack",)}),))
    assert terms.read("A backpacker's rucksack and a Backpack.").values("item") == ("backpack",)
    assert len(terms.read("A backpacker's rucksack and a Backpack.").entities) == 2


def test_domain_verbs_name_their_own_action():
    reader = UtteranceReader(actions={"top_up": r"\btop(?:ped)? up\b|充值"})
    assert [label(a) for a in reader.read("Shall I top up your card with $20?").acts] == [
        "confirm:top_up"
    ]
    assert [label(a) for a in reader.read("已为您充值50元。").acts] == ["done:top_up"]


def test_a_message_with_nothing_to_act_on_is_unclear():
    assert kinds("Let me look into that for you.") == ["unclear"]
    assert kinds("Hello!") == ["greeting"]


# -- the reference agents' own phrasing still reads right --------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (RETAIL_WORDS["ask_identity"], ["verify/email,name,zip"]),
        (RETAIL_WORDS["explain_identity"], ["verify", "explain"]),
        (RETAIL_WORDS["ask_order"], ["ask/order_id"]),
        (RETAIL_WORDS["ask_reason"], ["choice/reason|no longer needed;ordered by mistake"]),
        (RETAIL_WORDS["ask_refund_to"], ["choice/refund_method|original payment method;gift card"]),
        (RETAIL_WORDS["ask_option"].format(options="red, green"), ["choice/option|red;green"]),
        (RETAIL_WORDS["ask_address"], ["ask/address"]),
        (RETAIL_WORDS["ask_amount"], ["ask/amount"]),
        (RETAIL_WORDS["anything_else"], ["closing"]),
        (RETAIL_WORDS["how_can_i_help"], ["greeting"]),
        (RETAIL_WORDS["transfer"], ["handoff"]),
        (membership_vocab.ASK_IDENTITY, ["verify/email,member_id,dob"]),
        (membership_vocab.ASK_PLAN, ["choice/plan|basic;plus;premium"]),
        (membership_vocab.ASK_MONTHS, ["ask/duration"]),
        (membership_vocab.ASK_CHARGE, ["ask/charge,date"]),
        (
            "To confirm: I will cancel order #W1234567 (water bottle), reason: no longer needed. "
            "The total of $24.99 goes back to your original payment method. Shall I proceed? (yes/no)",
            ["confirm:cancel"],
        ),
        (
            "To confirm: I will change membership MS204518 from the Basic plan to the Premium plan "
            "(premium). Shall I proceed? (yes/no)",
            ["confirm:change_plan"],
        ),
        (
            "Done: order #W1234567 has been cancelled; $24.99 will be refunded. "
            + RETAIL_WORDS["anything_else"],
            ["done:cancel", "closing"],
        ),
        (
            "I'm sorry, I can't cancel order #W1234567: it is delivered, and only pending orders "
            "can be cancelled. " + RETAIL_WORDS["anything_else"],
            ["refuse:cancel+reason", "closing"],
        ),
        (
            "I couldn't find an account with those details. " + RETAIL_WORDS["ask_identity"],
            ["not_found/account", "verify/email,name,zip"],
        ),
        (
            "I will create a task titled 'Renew passport' for user_1. Shall I proceed? (yes/no)",
            ["confirm:create"],
        ),
        ("I am transferring you to a human agent", ["handoff"]),
    ],
)
def test_it_reads_the_reference_agents_phrases(text, expected):
    got = READER.read(text).acts
    assert acts_match([Expected.parse(e) for e in expected], got), [label(a) for a in got]


def test_the_reading_answers_the_questions_a_simulator_asks():
    reading = READER.read(
        "I've cancelled #W4410293 ($59.99). For #W4410317, refund to card or gift card?"
    )
    assert reading.kinds == (ActKind.DONE, ActKind.CHOICE)
    done = reading.first(ActKind.DONE)
    assert done is not None and done.values("order_id") == ("#W4410293",)
    assert reading.values("order_id") == ("#W4410293", "#W4410317")
    assert reading.of(ActKind.CONFIRM) == ()
    assert reading.first(ActKind.CONFIRM) is None


# -- the regex prefilter only skips what cannot match ------------------------------------------


def _gates() -> tuple[list[Gate], list[GatedNames]]:
    gates = [v for m in (lexicon, entities) for v in vars(m).values() if isinstance(v, Gate)]
    gates += [g for g, _kind, _convert in entities._VALUE_PATTERNS]
    names = [v for v in vars(lexicon).values() if isinstance(v, GatedNames)]
    return gates, names


def _same_as_unfiltered(text: str) -> None:
    gates, names = _gates()
    for gate in gates:
        got, want = gate.search(text), gate.pattern.search(text)
        assert (got and got.span()) == (want and want.span()), (gate.pattern.pattern[:60], text)
    for named in names:
        everything = re.compile("|".join(f"({src})" for src in named.sources))
        want_named = [
            (named.names[m.lastindex - 1], m.start(), m.end())
            for m in everything.finditer(text)
            if m.lastindex
        ]
        assert list(named.finditer(text)) == want_named, text


def test_the_prefilter_never_changes_what_a_pattern_finds_in_the_corpus():
    gates, _names = _gates()
    assert len(gates) > 20 and sum(g.needles is not None for g in gates) > 20
    for row in corpus():
        _same_as_unfiltered(row["text"])
        _same_as_unfiltered(row["text"].lower())


NEEDLES = sorted(
    {n for g in _gates()[0] if g.needles for n in g.needles[0]}
    | {n for g in _gates()[1] for ns in g.needles if ns for n in ns[0]}
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from([*NEEDLES, " ", ", ", "?", "你", "7", "the", "me to"]), max_size=10)
)
def test_the_prefilter_never_changes_what_a_pattern_finds_in_made_up_text(parts):
    _same_as_unfiltered("".join(parts))
    _same_as_unfiltered(" ".join(parts))


def test_the_needles_are_read_off_the_pattern():
    assert required(r"\bcancel\w*|取消") == {"cancel", "取消"}
    assert required(r"(?:please )?confirm\b") == {"confirm"}
    assert required(r"\d+ days?") == {" day"}
    assert required(r"\d{4}") == set("0123456789")
    assert required(r"[\u4e00-\u9fff]{2}市") == {"市"}
    assert required(r"Refund", re.IGNORECASE) == {"refund"}
    assert required(r".*") is None
    assert required(r"(?:foo)?\w+") is None


def test_the_examples_in_the_module_documentation_hold():
    import doctest

    import evals.engine.understanding.utterances as package

    result = doctest.testmod(package, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 10
    assert result.failed == 0


# -- money in any currency the payments rules know, with its own decimals ----------------


@pytest.mark.parametrize(
    ("text", "money"),
    [
        ("I'd like 11.437 KWD back, please.", ["11.437 KWD"]),
        ("Refund 2.5 BHD of the 9.625 BHD charge.", ["2.500 BHD", "9.625 BHD"]),
        ("It was 3200 JPY.", ["3200 JPY"]),
        ("KWD 4.2 was taken twice", ["4.200 KWD"]),
        ("I paid 1,250.5 EUR", ["1250.50 EUR"]),
        ("I'll try 3 times, all 2 of them", []),  # lower-case words are not codes
    ],
)
def test_the_reader_knows_every_currency_of_the_payments_rules_with_its_decimals(text, money):
    act = UtteranceReader().read(text)
    assert [e.value for e in act.entities if e.kind == "money"] == money
