"""The single requests a billing task is composed of, and which ones compound.

Each recipe returns a `Part` (request for the scenario, gold writes, communicate requirements,
required lookups) for a customer of the world. A request holds only what the customer knows
about the charge: its date, amount, merchant descriptor and card digits, never its id.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evals.domains.billing.world import (
    APPROVERS,
    BillingWorld,
    Charge,
    Customer,
    approver_for,
    money_text,
)
from evals.engine.composition import REFUSAL_MARKERS, TRANSFER_WORDS, Part
from evals.engine.task import GoldCall
from payments_sandbox.domain import Money

WORLD_SEED = 4242
# The policy's reasons for a refusal, in its words in English and Chinese (policy.md,
# policy.zh.md).
REASON_BALANCE = ("refundable balance", "可退余额")
REASON_CURRENCY = ("currency of the charge", "原币种")
REASON_FULLY_REFUNDED = ("fully refunded", "全额退款")
REASON_WINDOW = ("120 days", "120-day", "120 天")
REASON_HOLDER = ("account holder", "账户持有人")
REASON_PENDING = ("already pending", "审批中")
ALREADY = ("already", "已")
WHY = {
    "main": "one item of the order never arrived",
    "second": "the ride was cancelled but you were charged anyway",
    "partly": "the shop refunded part of it but you returned everything",
    "big": "the trip was cancelled by the travel agency",
    "pending": "the meal boxes were never delivered",
    "old": "you cancelled the membership long ago",
    "full": "the hotel booking was cancelled",
    "chargeback": "the laptop was faulty",
    "partner": "your partner was charged for a ticket that was never issued",
}


class Ctx:
    """One customer's situation, as a recipe sees it."""

    def __init__(self, world: BillingWorld, customer: Customer, partner: Customer) -> None:
        self.world = world
        self.customer = customer
        self.partner = partner

    def charge(self, role: str, customer: Customer | None = None) -> Charge:
        owner = customer or self.customer
        index = _role_index(role)
        return self.world.tables["charges"][f"CH-{owner.id[1:]}{index}"]

    def facts(self, charge: Charge) -> dict[str, Any]:
        """What the customer knows about a charge: its statement line and card digits."""
        return {
            "date": charge.date,
            "merchant": charge.merchant,
            "amount": money_text(charge.amount, charge.currency),
            "currency": charge.currency,
            "last4": self.world.card(charge.card_id).last4,
        }


def _role_index(role: str) -> int:
    from evals.domains.billing.world import ROLE_NAMES

    return ROLE_NAMES.index(role)


def charge_reads(c: Ctx, charge: Charge) -> tuple[GoldCall, ...]:
    """A lookup that shows the charge: the search by what the customer knows, or the charge."""
    return (
        GoldCall("find_charges", {"customer_id": c.customer.id}),
        GoldCall("get_charge", {"charge_id": charge.id}),
    )


def _refusal(c: Ctx, req: dict[str, Any], charge: Charge, *why: tuple[str, ...]) -> Part:
    """A request the policy refuses: nothing changes; the agent must have looked the charge up
    and give the rule's reason (in the words of policy.md or policy.zh.md)."""
    return Part(req, [], [REFUSAL_MARKERS, *why], (charge_reads(c, charge),), refused=True)


def _refund(c: Ctx, role: str, minor: int) -> Part:
    charge = c.charge(role)
    amount = Money(minor, charge.currency)
    text = amount.to_decimal_string()
    req = {"intent": "refund", **c.facts(charge), "refund": text, "why": role}
    approver = approver_for(amount)
    gold = [
        GoldCall(
            "request_refund",
            {
                "charge_id": charge.id,
                "amount": text,
                "currency": charge.currency,
                "mode": charge.mode,
                "approver": approver,
                "reason": "gold",
            },
        )
    ]
    within = APPROVERS[approver][1]
    days = within.split()[0]
    return Part(req, gold, [(approver,), (within, f"{days} 个工作日")])


def refund_partial(c: Ctx) -> Part:
    """A quarter of the fresh charge: a partial refund in the charge's own decimals."""
    charge = c.charge("main")
    return _refund(c, "main", charge.amount // 4)


def refund_full(c: Ctx) -> Part:
    charge = c.charge("second")
    return _refund(c, "second", charge.amount)


def refund_rest(c: Ctx) -> Part:
    """The rest of a charge the merchant already refunded in part."""
    charge = c.charge("partly")
    return _refund(c, "partly", charge.amount - charge.refunded)


def refund_large(c: Ctx) -> Part:
    """A refund above the desk's limit: the finance controller decides, in 5 business days."""
    charge = c.charge("big")
    return _refund(c, "big", charge.amount)


def refuse_above_balance(c: Ctx) -> Part:
    charge = c.charge("partly")
    req = {
        "intent": "refund",
        **c.facts(charge),
        "refund": money_text(charge.amount, charge.currency),
        "why": "partly",
    }
    balance = money_text(charge.amount - charge.refunded, charge.currency)
    return _refusal(c, req, charge, REASON_BALANCE, (balance,))


def refuse_other_currency(c: Ctx) -> Part:
    charge = c.charge("main")
    other = "USD" if charge.currency != "USD" else "EUR"
    req = {
        "intent": "refund",
        **c.facts(charge),
        "refund": "40.00",
        "refund_currency": other,
        "why": "main",
    }
    return _refusal(c, req, charge, REASON_CURRENCY)


def refuse_fully_refunded(c: Ctx) -> Part:
    charge = c.charge("full")
    req = {
        "intent": "refund",
        **c.facts(charge),
        "refund": money_text(charge.amount, charge.currency),
        "why": "full",
    }
    return _refusal(c, req, charge, REASON_FULLY_REFUNDED)


def refuse_past_window(c: Ctx) -> Part:
    charge = c.charge("old")
    req = {
        "intent": "refund",
        **c.facts(charge),
        "refund": money_text(charge.amount, charge.currency),
        "why": "old",
    }
    return _refusal(c, req, charge, REASON_WINDOW)


def refuse_someone_elses(c: Ctx) -> Part:
    """A charge on the customer's partner's card: only its account holder can dispute it."""
    charge = c.charge("main", c.partner)
    req = {
        "intent": "refund",
        **c.facts(charge),
        "refund": money_text(charge.amount, charge.currency),
        "why": "partner",
        "holder": "partner",
    }
    return _refusal(c, req, charge, REASON_HOLDER)


def refuse_already_pending(c: Ctx) -> Part:
    """Asked again after an earlier contact: the request is pending; no second one."""
    charge = c.charge("pending")
    pending = c.world.pending_requests(charge.id)[0]
    route = c.world.route(pending.reference)
    assert route is not None
    req = {
        "intent": "refund",
        **c.facts(charge),
        "refund": money_text(pending.amount, charge.currency),
        "why": "pending",
        "earlier": True,
    }
    return _refusal(c, req, charge, REASON_PENDING, (route.approver,))


def repeat_refund(c: Ctx) -> Part:
    """The same refund asked again in the same conversation, after it was requested."""
    charge = c.charge("main")
    req = {
        "intent": "repeat",
        **c.facts(charge),
        "refund": money_text(charge.amount // 4, charge.currency),
    }
    return Part(req, [], [ALREADY])


def _transfer(c: Ctx, charge: Charge, category: str) -> list[GoldCall]:
    return [
        GoldCall(
            "transfer_to_human",
            {
                "category": category,
                "summary": "",
                "customer_id": c.customer.id,
                "reference": charge.id,
            },
        )
    ]


def chargeback_handoff(c: Ctx) -> Part:
    charge = c.charge("chargeback")
    req = {
        "intent": "refund",
        **c.facts(charge),
        "refund": money_text(charge.amount, charge.currency),
        "why": "chargeback",
        "bank": True,
    }
    return Part(req, _transfer(c, charge, "chargeback"), [TRANSFER_WORDS])


def fraud_handoff(c: Ctx) -> Part:
    charge = c.charge("unknown")
    req = {"intent": "fraud", **c.facts(charge)}
    return Part(req, _transfer(c, charge, "fraud"), [TRANSFER_WORDS])


def update_email(c: Ctx) -> Part:
    new = f"{c.customer.first_name}.{c.customer.last_name}.mail@example.org".lower()
    gold = [GoldCall("update_email", {"customer_id": c.customer.id, "new_email": new})]
    return Part({"intent": "email", "new_email": new}, gold, [])


Recipe = Callable[[Ctx], Part]
# name -> (customers: currencies per variant, or "sandbox"; parts). Singles first, then
# compounds (a compound's parts in the order the customer asks them, and whether it must).
LIVE_ROTATION = ("EUR", "KWD", "JPY", "USD", "BHD")
SINGLES: dict[str, tuple[tuple[str, ...], tuple[Recipe, ...]]] = {
    "refund-partial-zero-decimals": (("JPY", "JPY", "JPY"), (refund_partial,)),
    "refund-partial-two-decimals": (("EUR", "USD", "EUR"), (refund_partial,)),
    "refund-partial-three-decimals": (("KWD", "BHD", "KWD"), (refund_partial,)),
    "refund-sandbox-account": (("sandbox",), (refund_partial,)),
    "refund-full-charge": (("USD", "JPY", "BHD"), (refund_full,)),
    "refund-rest-after-partial": (("EUR", "KWD", "JPY"), (refund_rest,)),
    "refund-large-senior-approver": (("BHD", "EUR", "USD"), (refund_large,)),
    "refuse-above-refundable-balance": (("USD", "BHD", "JPY"), (refuse_above_balance,)),
    "refuse-other-currency": (("EUR", "JPY", "KWD"), (refuse_other_currency,)),
    "refuse-fully-refunded": (("KWD", "USD", "EUR"), (refuse_fully_refunded,)),
    "refuse-past-dispute-window": (("JPY", "BHD", "USD"), (refuse_past_window,)),
    "refuse-someone-elses-charge": (("EUR", "KWD", "BHD"), (refuse_someone_elses,)),
    "refuse-repeated-request": (("USD", "JPY", "KWD"), (refuse_already_pending,)),
    "handoff-chargeback-filed": (("BHD", "EUR", "JPY"), (chargeback_handoff,)),
    "handoff-suspected-fraud": (("KWD", "USD", "EUR"), (fraud_handoff,)),
    "update-email": (("JPY", "EUR", "USD"), (update_email,)),
}
COMPOUNDS: dict[str, tuple[tuple[str, ...], tuple[Recipe, ...], bool]] = {
    "two-charges": (("EUR", "KWD"), (refund_partial, refund_full), False),
    "refund+update-email": (("JPY", "BHD"), (refund_partial, update_email), False),
    "update-email+refund-rest": (("USD", "EUR"), (update_email, refund_rest), False),
    "refund-then-repeat": (("KWD", "USD"), (refund_partial, repeat_refund), True),
    "refuse-window+refund": (("EUR", "JPY"), (refuse_past_window, refund_full), False),
    "refund-then-fraud": (("BHD", "JPY"), (refund_full, fraud_handoff), True),
}
