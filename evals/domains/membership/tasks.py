"""Compositional task generator: recipes (plan changes, freezes, cancellations, fee waivers,
refunds of overcharges, entitlement questions, refusals, disputes) × identity variants (email /
member number and date of birth / a wrong date of birth first), each with its gold writes.

Each recipe needs a member in a given situation (a world *profile*); the identity variant picks
which of that profile's members it is, so variants differ in name, currency and amounts.

The scenario's `data` is the member's own structured instructions for the scripted user:
{"identity": {...}, "requests": [{"intent": ..., ...}], "ordered": bool}.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
from typing import Any, NamedTuple

from evals.domains.membership.population import MEMBERS_PER_PROFILE, PROFILES, build_world
from evals.domains.membership.world import (
    PLANS,
    Invoice,
    InvoiceLine,
    Member,
    Membership,
    MembershipWorld,
    cancellation_fee,
    freeze_fee,
    money_text,
    proration,
)
from evals.engine.task import GoldCall, Scenario, Task, TaskKind

WORLD_SEED = 31337
REFUSAL_MARKERS = ("can't", "cannot", "unable", "not able", "not possible", "无法", "不能")
# The policy's reasons for a refusal, in its words in English and Chinese (policy.md,
# policy.zh.md), with the paraphrases a careful agent uses for the same fact.
REASON_COMMITMENT = ("commitment", "合约期")
REASON_FREEZE_LIMIT = (
    "2 freezes",
    "two freezes",
    "freeze limit",
    "2 次冻结",
    "两次冻结",
    "冻结 2 次",
    "冻结两次",
)
REASON_PAST_DUE = ("past due", "past_due", "overdue", "逾期")
REASON_WAIVER_LIMIT = ("12 months", "12 个月", "12个月")
# The member points at check-ins; the reason is that only paid entitlements cover a charge.
REASON_NOT_ENTITLED = ("entitlement", "权益")
REASON_NO_OVERCHARGE = ("overcharge", "charged correctly", "多收", "收费正确")
MONTH_WORDS = {"04": "April", "05": "May", "06": "June"}


class Ctx:
    """One member's situation, as a recipe sees it."""

    def __init__(self, world: MembershipWorld, member: Member) -> None:
        self.world = world
        self.member = member
        self.ms: Membership = world.membership_of(member.id)
        self.cur = self.ms.currency

    def money(self, minor: int) -> str:
        return money_text(minor, self.cur)

    def line(self, kind: str, duplicate: bool = False) -> tuple[Invoice, InvoiceLine]:
        for inv in self.world.invoices_of(self.member.id):
            for line in inv.lines:
                if line.kind == kind and bool(line.duplicate_of) == duplicate:
                    return inv, line
        raise AssertionError(f"{self.member.id} has no {kind} line")

    def after_change(self, topic: str, reference: str) -> list[GoldCall]:
        return [
            GoldCall(
                "notify_customer",
                {"member_id": self.member.id, "topic": topic, "reference": reference},
            ),
            GoldCall(
                "add_note",
                {
                    "member_id": self.member.id,
                    "topic": topic,
                    "reference": reference,
                    "text": "gold",
                },
            ),
        ]


class Part(NamedTuple):
    """One request of a task: what the member asks (the scenario's), the gold writes, what the
    agent must say (each entry a tuple of alternatives) and what it must have looked up (each
    entry a tuple of alternative READs; see `Task.required_reads`)."""

    request: dict[str, Any]
    gold: list[GoldCall]
    communicate: list[tuple[str, ...]]
    reads: tuple[tuple[GoldCall, ...], ...] = ()


def _refusal(req: dict[str, Any], why: tuple[str, ...], *reads: tuple[GoldCall, ...]) -> Part:
    """A request the policy refuses: nothing changes; the agent must have read the record the
    rule decides on and give the rule's reason (in the words of policy.md or policy.zh.md)."""
    return Part({**req, "expect": "refusal"}, [], [REFUSAL_MARKERS, why], reads)


def _membership_read(c: Ctx, quote: str = "") -> tuple[GoldCall, ...]:
    """get_membership shows status, commitment, freezes and waivers; a quote tool shows the
    same fact for one change."""
    record = GoldCall("get_membership", {"member_id": c.member.id})
    if not quote:
        return (record,)
    return record, GoldCall(quote, {"membership_id": c.ms.id})


def _period_word(inv: Invoice) -> str:
    return MONTH_WORDS[inv.period[-2:]]


# -- plan changes --------------------------------------------------------------------------


def _plan_change(c: Ctx, plan_id: str) -> Part:
    amount = proration(c.ms.monthly_fee, PLANS[plan_id].price(c.cur), c.ms.days_left_in_cycle)
    req = {
        "intent": "plan_change",
        "plan": plan_id,
        "plan_name": PLANS[plan_id].name,
        "direction": "upgrade" if amount > 0 else "downgrade",
    }
    gold = [
        GoldCall("change_plan", {"membership_id": c.ms.id, "new_plan_id": plan_id}),
        *c.after_change("plan_change", c.ms.id),
    ]
    return Part(req, gold, [(c.money(abs(amount)),)])


def upgrade_premium(c: Ctx) -> Part:
    return _plan_change(c, "premium")


def upgrade_plus(c: Ctx) -> Part:
    return _plan_change(c, "plus")


def downgrade_plus(c: Ctx) -> Part:
    return _plan_change(c, "plus")


def refuse_downgrade(c: Ctx) -> Part:
    return _refusal(
        {"intent": "plan_change", "plan": "basic", "plan_name": "Basic", "direction": "downgrade"},
        REASON_COMMITMENT,
        _membership_read(c, "quote_plan_change"),
    )


# -- freezes -------------------------------------------------------------------------------


def _freeze(c: Ctx, months: int) -> Part:
    req = {"intent": "freeze", "months": months}
    gold = [
        GoldCall("freeze_membership", {"membership_id": c.ms.id, "months": months}),
        *c.after_change("freeze", c.ms.id),
    ]
    return Part(req, gold, [(c.money(freeze_fee(c.cur, months)),)])


def freeze_two(c: Ctx) -> Part:
    return _freeze(c, 2)


def freeze_one(c: Ctx) -> Part:
    return _freeze(c, 1)


def refuse_freeze_limit(c: Ctx) -> Part:
    return _refusal(
        {"intent": "freeze", "months": 1}, REASON_FREEZE_LIMIT, _membership_read(c, "quote_freeze")
    )


def refuse_freeze_past_due(c: Ctx) -> Part:
    return _refusal(
        {"intent": "freeze", "months": 2}, REASON_PAST_DUE, _membership_read(c, "quote_freeze")
    )


def unfreeze(c: Ctx) -> Part:
    gold = [
        GoldCall("unfreeze_membership", {"membership_id": c.ms.id}),
        *c.after_change("unfreeze", c.ms.id),
    ]
    return Part({"intent": "unfreeze"}, gold, [])


# -- cancellations -------------------------------------------------------------------------


def cancel_with_fee(c: Ctx) -> Part:
    fee = c.money(cancellation_fee(c.ms))
    gold = [
        GoldCall("cancel_membership", {"membership_id": c.ms.id, "fee": fee}),
        *c.after_change("cancellation", c.ms.id),
    ]
    return Part({"intent": "cancel", "accept_fee": True}, gold, [(fee,)])


def cancel_free(c: Ctx) -> Part:
    assert cancellation_fee(c.ms) == 0
    return cancel_with_fee(c)


def refuse_cancel_without_fee(c: Ctx) -> Part:
    # The fee (a number) is the reason: it applies inside the commitment and cannot be waived.
    return _refusal(
        {"intent": "cancel", "accept_fee": False},
        (c.money(cancellation_fee(c.ms)),),
        _membership_read(c, "quote_cancellation"),
    )


# -- fees and refunds ----------------------------------------------------------------------


def waive_late_fee(c: Ctx) -> Part:
    inv, line = c.line("late_fee")
    req = {
        "intent": "waive",
        "period": _period_word(inv),
        "amount": c.money(line.amount),
        "currency": c.cur,
    }
    gold = [
        GoldCall("waive_fee", {"invoice_id": inv.id, "item_id": line.item_id, "reason": "gold"}),
        *c.after_change("fee_waiver", inv.id),
    ]
    return Part(req, gold, [])


def refuse_second_waiver(c: Ctx) -> Part:
    inv, line = c.line("late_fee")
    return _refusal(
        {
            "intent": "waive",
            "period": _period_word(inv),
            "amount": c.money(line.amount),
            "currency": c.cur,
        },
        REASON_WAIVER_LIMIT,
        _membership_read(c),
    )


def _refund(c: Ctx, inv: Invoice, line: InvoiceLine, what: str) -> Part:
    amount = c.money(line.amount)
    req = {
        "intent": "refund",
        "what": what,
        "period": _period_word(inv),
        "amount": amount,
        "currency": c.cur,
    }
    gold = [
        GoldCall(
            "request_refund",
            {
                "invoice_id": inv.id,
                "item_id": line.item_id,
                "amount": amount,
                "currency": c.cur,
                "reason": "gold",
            },
        ),
        *c.after_change("refund", inv.id),
    ]
    return Part(req, gold, [("approv", "审批")])


def refund_duplicate(c: Ctx) -> Part:
    inv, line = c.line("dues", duplicate=True)
    return _refund(c, inv, line, "duplicate")


def refund_class_drop_in(c: Ctx) -> Part:
    inv, line = c.line("class_drop_in")
    return _refund(c, inv, line, "class")


def refuse_refund_checkins(c: Ctx) -> Part:
    """The trap: the member points at studio check-ins; no paid class entitlement exists."""
    inv, line = c.line("class_drop_in")
    req = {
        "intent": "refund",
        "what": "class",
        "claim": "checkins",
        "period": _period_word(inv),
        "amount": c.money(line.amount),
        "currency": c.cur,
    }
    return _refusal(
        req,
        REASON_NOT_ENTITLED,
        (GoldCall("list_entitlements", {"member_id": c.member.id}),),
    )


def refuse_refund_dues(c: Ctx) -> Part:
    inv = next(i for i in c.world.invoices_of(c.member.id) if i.period == "2025-04")
    return _refusal(
        {
            "intent": "refund",
            "what": "dues",
            "period": "April",
            "amount": c.money(inv.lines[0].amount),
            "currency": c.cur,
        },
        REASON_NO_OVERCHARGE,
        (GoldCall("list_invoices", {"member_id": c.member.id}),),
    )


# -- disputes and questions ----------------------------------------------------------------


def dispute_late_fee(c: Ctx) -> Part:
    inv, line = c.line("late_fee")
    req = {
        "intent": "dispute",
        "what": "late_fee",
        "period": _period_word(inv),
        "amount": c.money(line.amount),
        "currency": c.cur,
    }
    gold = [
        GoldCall(
            "transfer_to_human",
            {"category": "dispute", "summary": "", "member_id": c.member.id, "reference": inv.id},
        )
    ]
    return Part(req, gold, [("transfer",)])


def dispute_cancellation_fee(c: Ctx) -> Part:
    req = {"intent": "dispute", "what": "cancellation_fee"}
    gold = [
        GoldCall(
            "transfer_to_human",
            {"category": "dispute", "summary": "", "member_id": c.member.id, "reference": c.ms.id},
        )
    ]
    return Part(req, gold, [("transfer",)])


def _balance(c: Ctx, kind: str, label: str) -> Part:
    ent = next(e for e in c.world.entitlements_of(c.member.id) if e.kind == kind)
    alts = (f"{ent.remaining} {label}",) + (
        (f"{ent.remaining} pt session",) if kind == "pt_session" else ()
    )
    return Part({"intent": "balance", "kind": kind}, [], [alts])


def balance_guest(c: Ctx) -> Part:
    return _balance(c, "guest_pass", "guest pass")


def balance_pt(c: Ctx) -> Part:
    return _balance(c, "pt_session", "personal-training session")


Recipe = Callable[[Ctx], Part]
# name -> (profile, parts). Singles first, then compounds (a compound's parts in the order the
# member asks them).
SINGLES: dict[str, tuple[str, tuple[Recipe, ...]]] = {
    "upgrade-premium": ("committed", (upgrade_premium,)),
    "upgrade-plus": ("trap", (upgrade_plus,)),
    "downgrade-after-commitment": ("free", (downgrade_plus,)),
    "refuse-downgrade-in-commitment": ("committed", (refuse_downgrade,)),
    "freeze-two-months": ("committed", (freeze_two,)),
    "freeze-second-of-year": ("free", (freeze_one,)),
    "refuse-third-freeze": ("trap", (refuse_freeze_limit,)),
    "refuse-freeze-past-due": ("late", (refuse_freeze_past_due,)),
    "unfreeze": ("frozen", (unfreeze,)),
    "cancel-with-fee": ("committed", (cancel_with_fee,)),
    "cancel-after-commitment": ("free", (cancel_free,)),
    "refuse-cancel-without-fee": ("frozen", (refuse_cancel_without_fee,)),
    "waive-late-fee": ("late", (waive_late_fee,)),
    "refuse-second-waiver": ("late-waived", (refuse_second_waiver,)),
    "refund-duplicate-dues": ("committed", (refund_duplicate,)),
    "refund-class-with-pack": ("free", (refund_class_drop_in,)),
    "refuse-refund-checkins-not-entitlement": ("trap", (refuse_refund_checkins,)),
    "refuse-refund-correct-dues": ("free", (refuse_refund_dues,)),
    "dispute-late-fee": ("late-waived", (dispute_late_fee,)),
    "dispute-cancellation-fee": ("committed", (dispute_cancellation_fee,)),
}
COMPOUNDS: dict[str, tuple[str, tuple[Recipe, ...], bool]] = {
    "refund-duplicate+guest-passes": ("committed", (refund_duplicate, balance_guest), False),
    "waive-late-fee+cancel-with-fee": ("late", (waive_late_fee, cancel_with_fee), False),
    "unfreeze-then-upgrade": ("frozen", (unfreeze, upgrade_premium), True),
    "downgrade+refund-class": ("free", (downgrade_plus, refund_class_drop_in), False),
    "freeze+pt-sessions": ("committed", (freeze_two, balance_pt), False),
    "refuse-checkin-refund+upgrade": ("trap", (refuse_refund_checkins, upgrade_plus), False),
}
VARIANTS = ("email", "number-dob", "wrong-dob-first")
COMPOUND_VARIANTS = ("email", "wrong-dob-first")
SMOKE = {
    "upgrade-premium/email",
    "freeze-two-months/number-dob",
    "refuse-refund-checkins-not-entitlement/email",
    "refund-duplicate-dues/wrong-dob-first",
    "dispute-late-fee/email",
}


def wrong_dob(dob: str) -> str:
    """A plausible slip: day and month swapped, or the year off by one when that is a no-op."""
    year, month, day = dob.split("-")
    if int(day) <= 12 and day != month:
        return f"{year}-{day}-{month}"
    return f"{int(year) + 1}-{month}-{day}"


def _scenario(m: Member, requests: list[dict[str, Any]], variant: str, ordered: bool) -> Scenario:
    gives = "email" if variant == "email" else "number"
    identity = {
        "first_name": m.first_name,
        "last_name": m.last_name,
        "email": m.email,
        "member_number": m.id,
        "dob": m.date_of_birth,
        "gives": gives,
        "wrong_dob": wrong_dob(m.date_of_birth) if variant == "wrong-dob-first" else "",
    }
    known = f"You are {m.first_name} {m.last_name}, member number {m.id}, born {m.date_of_birth}."
    if gives == "email":
        known += f" Your email is {m.email}."
    instructions = "Ask for these in this order; the second needs the first. " if ordered else ""
    if variant == "wrong-dob-first":
        instructions += (
            f"At first you give your date of birth as {identity['wrong_dob']} by mistake. "
        )
    instructions += (
        "Accept a refusal if the agent explains the policy; accept a transfer to a human."
    )
    return Scenario(
        reason="You want to " + "; then ".join(describe(r) for r in requests) + ".",
        known_info=known,
        unknown_info=""
        if gives == "email"
        else "You do not remember which email your account uses.",
        instructions=instructions,
        data={"identity": identity, "requests": requests, "ordered": ordered},
    )


def describe(r: dict[str, Any]) -> str:
    intent = r["intent"]
    if intent == "plan_change":
        return f"{r['direction']} your membership to the {r['plan_name']} plan"
    if intent == "freeze":
        return f"freeze your membership for {r['months']} month(s)"
    if intent == "unfreeze":
        return "unfreeze your membership: you are back"
    if intent == "cancel":
        return "cancel your membership" + (
            "; you accept a cancellation fee"
            if r["accept_fee"]
            else " but you refuse to pay any cancellation fee"
        )
    if intent == "waive":
        return f"get the late fee of {r['amount']} {r['currency']} on your {r['period']} invoice waived"
    if intent == "refund":
        what = {
            "duplicate": "your dues were charged twice",
            "class": "you were charged for a class drop-in",
            "dues": "you did not use the gym that month",
        }[r["what"]]
        text = (
            f"get a refund of {r['amount']} {r['currency']} on your {r['period']} invoice: {what}"
        )
        if r.get("claim") == "checkins":
            text += "; you believe your many studio-class check-ins show classes are part of your membership"
        return text
    if intent == "dispute":
        if r["what"] == "late_fee":
            return f"dispute the late fee of {r['amount']} {r['currency']} on your {r['period']} invoice"
        return (
            "dispute the early cancellation fee, which you find unfair, and have a person review it"
        )
    label = "guest passes" if r["kind"] == "guest_pass" else "personal-training sessions"
    return f"know how many {label} you have left"


def _task(n: int, name: str, variant: str, m: Member, parts: list[Part], ordered: bool) -> Task:
    requests = [p.request for p in parts]
    gold = tuple(g for p in parts for g in p.gold)
    communicate = tuple(x for p in parts for x in p.communicate)
    handoff = next(
        (str(g.arguments["category"]) for g in gold if g.name == "transfer_to_human"), ""
    )
    refusal = any(r.get("expect") == "refusal" for r in requests)
    kind = (
        TaskKind.REFUSAL
        if refusal and not gold
        else TaskKind.HANDOFF
        if handoff
        else TaskKind.ACTION
    )
    return Task(
        id=f"membership-{n:03d}-{name}-{variant}",
        domain="membership",
        kind=kind,
        scenario=_scenario(m, requests, variant, ordered),
        gold=gold,
        world_seed=WORLD_SEED,
        handoff_category=handoff,
        communicate=communicate,
        intents=tuple(r["intent"] for r in requests),
        required_reads=tuple(r for p in parts for r in p.reads),
    )


def _members_by_profile(world: MembershipWorld) -> dict[str, list[Member]]:
    members = list(world.tables["members"].values())
    return {
        p.name: members[i * MEMBERS_PER_PROFILE : (i + 1) * MEMBERS_PER_PROFILE]
        for i, p in enumerate(PROFILES)
    }


@lru_cache(maxsize=1)
def generate_tasks() -> tuple[Task, ...]:
    world = build_world(WORLD_SEED)
    by_profile = _members_by_profile(world)
    recipes: list[tuple[str, str, tuple[Recipe, ...], bool, tuple[str, ...]]] = [
        (name, profile, parts, False, VARIANTS) for name, (profile, parts) in SINGLES.items()
    ] + [
        (name, profile, parts, ordered, COMPOUND_VARIANTS)
        for name, (profile, parts, ordered) in COMPOUNDS.items()
    ]
    tasks: list[Task] = []
    n = 0
    for name, profile, recipe_parts, ordered, variants in recipes:
        for v_index, variant in enumerate(variants):
            member = by_profile[profile][v_index % MEMBERS_PER_PROFILE]
            ctx = Ctx(world, member)
            task = _task(n, name, variant, member, [r(ctx) for r in recipe_parts], ordered)
            if f"{name}/{variant}" in SMOKE:
                task = replace(task, splits=(*task.splits, "smoke"))
            tasks.append(task)
            n += 1
    return tuple(tasks)
