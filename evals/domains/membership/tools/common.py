"""What the membership tools share: the record views they return and the helpers the writes use."""

from __future__ import annotations

import re
from typing import Any, Literal

from evals.domains.membership.world import (
    PLANS,
    Invoice,
    InvoiceLine,
    Membership,
    MembershipWorld,
    money_text,
)

PlanId = Literal["basic", "plus", "premium"]
Topic = Literal["plan_change", "freeze", "unfreeze", "cancellation", "fee_waiver", "refund"]
HandoffCategory = Literal["dispute", "out_of_policy", "fraud", "other"]
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
NEW_INVOICE_CODES = {"proration": "PR", "freeze_fee": "FZ", "cancellation_fee": "CX"}


def plan_view(plan_id: str, currency: str) -> dict[str, Any]:
    plan = PLANS[plan_id]
    return {
        "plan_id": plan.id,
        "name": plan.name,
        "monthly_price": money_text(plan.price(currency), currency),
        "includes": plan.includes,
    }


def membership_view(world: MembershipWorld, ms: Membership) -> dict[str, Any]:
    member = world.member(ms.member_id)
    cur = ms.currency
    return {
        "membership_id": ms.id,
        "member_id": member.id,
        "name": f"{member.first_name} {member.last_name}",
        "email": member.email,
        "home_club": member.home_club,
        "plan": plan_view(ms.plan_id, cur),
        "status": ms.status,
        "currency": cur,
        "monthly_fee": money_text(ms.monthly_fee, cur),
        "started": ms.started,
        "commitment_end": ms.commitment_end,
        "commitment_months_left": ms.commitment_months_left,
        "days_left_in_billing_cycle": ms.days_left_in_cycle,
        "freezes_used_this_year": ms.freezes_this_year,
        "frozen_months": ms.frozen_months,
        "late_fee_waivers_last_12_months": ms.late_fee_waivers_12m,
        "account_credit": money_text(ms.account_credit, cur),
        "other_plans": [plan_view(p, cur) for p in PLANS if p != ms.plan_id],
    }


def invoice_view(world: MembershipWorld, inv: Invoice) -> dict[str, Any]:
    cur = inv.currency
    requests = [r for r in world.backoffice.refund_requests if r.reference.startswith(f"{inv.id}/")]
    return {
        "invoice_id": inv.id,
        "period": inv.period,
        "status": inv.status,
        "currency": cur,
        "due_date": inv.due_date,
        "total": money_text(inv.total, cur),
        "paid": money_text(inv.paid, cur),
        "refunded": money_text(inv.refunded, cur),
        "lines": [
            {
                "item_id": line.item_id,
                "kind": line.kind,
                "description": line.description,
                "amount": money_text(line.amount, cur),
                "list_price": money_text(line.list_price, cur),
                "duplicate_of": line.duplicate_of,
                "waived": line.waived,
            }
            for line in inv.lines
        ],
        "refund_requests": [
            {
                "item_id": r.reference.split("/", 1)[1],
                "amount": money_text(r.amount, r.currency),
                "state": r.state,
            }
            for r in requests
        ],
    }


def own_membership(world: MembershipWorld, membership_id: str) -> Membership:
    return world.membership(membership_id)


def add_invoice(world: MembershipWorld, ms: Membership, kind: str, text: str, amount: int) -> str:
    code = NEW_INVOICE_CODES[kind]
    digits = ms.member_id[1:]
    n = 1
    while f"INV-{digits}-{code}{n}" in world.tables["invoices"]:
        n += 1
    inv_id = f"INV-{digits}-{code}{n}"
    line = InvoiceLine(f"L{digits}{code}{n}", kind, text, amount, amount)
    world.put(
        "invoices",
        inv_id,
        Invoice(inv_id, ms.member_id, "2025-06", ms.currency, "open", (line,), 0, 0, "2025-07-05"),
    )
    return inv_id
