"""The single requests a membership task is composed of, and which ones compound.

Each recipe returns a `Part` (request for the scenario, gold writes, communicate requirements,
required lookups) for a member of the world; SINGLES and COMPOUNDS name the world profile the
member is taken from.
"""

from __future__ import annotations

from collections.abc import Callable

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
from evals.engine.composition import TRANSFER_WORDS, Part, refusal
from evals.engine.task import GoldCall

WORLD_SEED = 31337
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
    return refusal(
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
    return refusal(
        {"intent": "freeze", "months": 1}, REASON_FREEZE_LIMIT, _membership_read(c, "quote_freeze")
    )


def refuse_freeze_past_due(c: Ctx) -> Part:
    return refusal(
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
    return refusal(
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
    return refusal(
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
    return refusal(
        req,
        REASON_NOT_ENTITLED,
        (GoldCall("list_entitlements", {"member_id": c.member.id}),),
    )


def refuse_refund_dues(c: Ctx) -> Part:
    inv = next(i for i in c.world.invoices_of(c.member.id) if i.period == "2025-04")
    return refusal(
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
    return Part(req, gold, [TRANSFER_WORDS])


def dispute_cancellation_fee(c: Ctx) -> Part:
    req = {"intent": "dispute", "what": "cancellation_fee"}
    gold = [
        GoldCall(
            "transfer_to_human",
            {"category": "dispute", "summary": "", "member_id": c.member.id, "reference": c.ms.id},
        )
    ]
    return Part(req, gold, [TRANSFER_WORDS])


def _balance(c: Ctx, kind: str, label: str) -> Part:
    ent = next(e for e in c.world.entitlements_of(c.member.id) if e.kind == kind)
    zh = {"guest_pass": "张访客券", "pt_session": "节私教课"}[kind]
    alts = (f"{ent.remaining} {label}", f"{ent.remaining} {zh}") + (
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
