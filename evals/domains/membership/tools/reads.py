"""The membership READ tools: identity and lookups. Docstrings are written for the model."""

from __future__ import annotations

from typing import Any

from evals.domains.membership.tools.common import (
    DATE,
    PlanId,
    invoice_view,
    membership_view,
    own_membership,
)
from evals.domains.membership.world import (
    MAX_FREEZE_MONTHS,
    MAX_FREEZES_PER_YEAR,
    PLANS,
    MembershipWorld,
    cancellation_fee,
    freeze_fee,
    money_text,
    proration,
)
from evals.engine.errors import ToolError
from evals.engine.identity import email_lookup
from evals.engine.tools import ToolKind, tool

# -- identity -----------------------------------------------------------------------------


find_member_by_email = email_lookup(
    """Verify the member's identity by the email address of their account. Returns their member
    id. Do this (or find_member_by_number) before anything else.

    Args:
        email: The email address the member gave, e.g. "ava.adler3@example.com".
    """,
    table="members",
    who="member",
)


@tool(kind=ToolKind.READ)
def find_member_by_number(
    world: MembershipWorld, member_number: str, date_of_birth: str
) -> dict[str, str]:
    """Verify the member's identity by the member number on their card and their date of
    birth. Both must match. Returns their member id.

    Args:
        member_number: The member number, "M" and 6 digits, e.g. "M204518".
        date_of_birth: The date of birth written YYYY-MM-DD, e.g. "1988-04-12".
    """
    if not DATE.match(date_of_birth.strip()):
        raise ToolError("date_of_birth must be written YYYY-MM-DD, e.g. 1988-04-12.")
    member = world.tables["members"].get(member_number.strip().upper())
    if member is None or member.date_of_birth != date_of_birth.strip():
        raise ToolError("No member matches that member number and date of birth.")
    world.session.verified_customer_id = member.id
    return {"member_id": member.id}


# -- reads --------------------------------------------------------------------------------


@tool(kind=ToolKind.READ)
def get_membership(world: MembershipWorld, member_id: str) -> dict[str, Any]:
    """The member's membership: membership id, plan and price, status (active, frozen,
    cancelled, past_due), currency, commitment end and months left, days left in the billing
    cycle, freezes used this year, late-fee waivers in the last 12 months, account credit, and
    the other plans with their prices in the member's currency.

    Args:
        member_id: The id returned by the find_member tools, e.g. "M204518".
    """
    return membership_view(world, world.membership_of(member_id))


@tool(kind=ToolKind.READ)
def list_invoices(world: MembershipWorld, member_id: str) -> list[dict[str, Any]]:
    """The member's invoices with their lines (item id, kind, description, amount charged,
    list price, the line it duplicates if any, waived), status (paid, open, overdue), amounts
    paid and refunded, and refund requests already made on them.

    Args:
        member_id: The member id, e.g. "M204518".
    """
    world.member(member_id)
    return [invoice_view(world, inv) for inv in world.invoices_of(member_id)]


@tool(kind=ToolKind.READ)
def list_entitlements(world: MembershipWorld, member_id: str) -> list[dict[str, Any]]:
    """The member's paid entitlements: class packs, guest passes and personal-training
    sessions, each with its source (the plan or a paid pack), total, used, remaining and
    expiry. Only these are rights the member has paid for.

    Args:
        member_id: The member id, e.g. "M204518".
    """
    world.member(member_id)
    return [
        {
            "entitlement_id": e.id,
            "kind": e.kind,
            "source": e.source,
            "total": e.total,
            "used": e.used,
            "remaining": e.remaining,
            "paid_invoice": e.paid_invoice,
            "expires": e.expires,
        }
        for e in world.entitlements_of(member_id)
    ]


@tool(kind=ToolKind.READ)
def list_checkins(world: MembershipWorld, member_id: str) -> list[dict[str, str]]:
    """The member's check-in log this month: each badge scan with date, club and area (gym
    floor, studio class, guest entry, pt studio, pool). A check-in records a visit; it is not
    an entitlement and proves no right to a class, guest pass or training session.

    Args:
        member_id: The member id, e.g. "M204518".
    """
    world.member(member_id)
    return [{"date": c.date, "club": c.club, "area": c.area} for c in world.checkins_of(member_id)]


@tool(kind=ToolKind.READ)
def quote_plan_change(
    world: MembershipWorld, membership_id: str, new_plan_id: PlanId
) -> dict[str, Any]:
    """What a change to another plan would cost now: the pro-rated difference for the days
    left in the billing cycle (charged now for an upgrade, credited to the account for a
    downgrade), and the new monthly fee. Changes nothing.

    Args:
        membership_id: The membership id, e.g. "MS204518".
        new_plan_id: "basic", "plus" or "premium".
    """
    ms = own_membership(world, membership_id)
    if new_plan_id == ms.plan_id:
        raise ToolError(f"Membership {ms.id} is already on the {PLANS[new_plan_id].name} plan.")
    new_fee = PLANS[new_plan_id].price(ms.currency)
    amount = proration(ms.monthly_fee, new_fee, ms.days_left_in_cycle)
    cur = ms.currency
    return {
        "membership_id": ms.id,
        "current_plan": ms.plan_id,
        "new_plan": new_plan_id,
        "direction": "upgrade" if PLANS[new_plan_id].rank > PLANS[ms.plan_id].rank else "downgrade",
        "current_monthly_fee": money_text(ms.monthly_fee, cur),
        "new_monthly_fee": money_text(new_fee, cur),
        "days_left_in_billing_cycle": ms.days_left_in_cycle,
        "prorated_charge_now": money_text(max(amount, 0), cur),
        "prorated_credit": money_text(max(-amount, 0), cur),
        "currency": cur,
        "commitment_months_left": ms.commitment_months_left,
    }


@tool(kind=ToolKind.READ)
def quote_freeze(world: MembershipWorld, membership_id: str, months: int) -> dict[str, Any]:
    """What freezing the membership for `months` would cost (the freeze fee per month), and
    how many freezes were already used this calendar year. Changes nothing.

    Args:
        membership_id: The membership id, e.g. "MS204518".
        months: Number of months to freeze, 1 to 3.
    """
    ms = own_membership(world, membership_id)
    if not 1 <= months <= MAX_FREEZE_MONTHS:
        raise ToolError(f"A freeze lasts 1 to {MAX_FREEZE_MONTHS} months, not {months}.")
    return {
        "membership_id": ms.id,
        "status": ms.status,
        "months": months,
        "freeze_fee": money_text(freeze_fee(ms.currency, months), ms.currency),
        "currency": ms.currency,
        "freezes_used_this_year": ms.freezes_this_year,
        "freezes_allowed_per_year": MAX_FREEZES_PER_YEAR,
    }


@tool(kind=ToolKind.READ)
def quote_cancellation(world: MembershipWorld, membership_id: str) -> dict[str, Any]:
    """The cancellation fee: inside the commitment period, half of the dues left in the
    commitment; after it, nothing. Changes nothing.

    Args:
        membership_id: The membership id, e.g. "MS204518".
    """
    ms = own_membership(world, membership_id)
    return {
        "membership_id": ms.id,
        "status": ms.status,
        "in_commitment": ms.commitment_months_left > 0,
        "commitment_end": ms.commitment_end,
        "commitment_months_left": ms.commitment_months_left,
        "cancellation_fee": money_text(cancellation_fee(ms), ms.currency),
        "currency": ms.currency,
    }
