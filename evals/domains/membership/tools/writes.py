"""The membership WRITE tools, each guarded by the rules. Docstrings are written for the model."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from evals.domains.membership.tools.common import (
    HandoffCategory,
    PlanId,
    Topic,
    add_invoice,
    own_membership,
)
from evals.domains.membership.world import (
    MAX_FREEZE_MONTHS,
    MAX_LATE_FEE_WAIVERS_12M,
    PLANS,
    ROSTER,
    MembershipWorld,
    Note,
    cancellation_fee,
    freeze_fee,
    money_text,
    proration,
)
from evals.engine.errors import ToolError
from evals.engine.tools import Confirm, ToolKind, tool
from evals.engine.world import Handoff, Notification, RefundRequest
from payments_sandbox.domain import AmountError, CurrencyError, Money, RefundState


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("plan", "upgrade", "downgrade", "套餐"), keys=("new_plan_id",)),
)
def change_plan(world: MembershipWorld, membership_id: str, new_plan_id: PlanId) -> dict[str, Any]:
    """Move an active membership to another plan now. An upgrade charges the pro-rated
    difference on a new invoice; a downgrade credits it to the account. Quote it first with
    quote_plan_change and get the member's explicit confirmation of the new plan and amount.

    Args:
        membership_id: The membership id, e.g. "MS204518".
        new_plan_id: "basic", "plus" or "premium".
    """
    ms = own_membership(world, membership_id)
    if ms.status != "active":
        raise ToolError(
            f"Membership {ms.id} is {ms.status}; only active memberships can change plan."
        )
    if new_plan_id == ms.plan_id:
        raise ToolError(f"Membership {ms.id} is already on the {PLANS[new_plan_id].name} plan.")
    new_fee = PLANS[new_plan_id].price(ms.currency)
    amount = proration(ms.monthly_fee, new_fee, ms.days_left_in_cycle)
    out: dict[str, Any] = {"membership_id": ms.id, "plan": new_plan_id, "currency": ms.currency}
    credit = ms.account_credit
    if amount > 0:
        out["invoice_id"] = add_invoice(
            world, ms, "proration", f"Pro-rated change to {PLANS[new_plan_id].name}", amount
        )
        out["charged"] = money_text(amount, ms.currency)
    else:
        credit -= amount
        out["credited"] = money_text(-amount, ms.currency)
    world.put(
        "memberships",
        ms.id,
        replace(ms, plan_id=new_plan_id, monthly_fee=new_fee, account_credit=credit),
    )
    return out


@tool(kind=ToolKind.WRITE, confirm=Confirm(words=("freeze", "冻结"), keys=("months",)))
def freeze_membership(world: MembershipWorld, membership_id: str, months: int) -> dict[str, Any]:
    """Freeze an active membership for 1 to 3 months; the freeze fee per month is billed on a
    new invoice. Quote it first with quote_freeze and get explicit confirmation of the months
    and the fee.

    Args:
        membership_id: The membership id, e.g. "MS204518".
        months: Number of months, 1 to 3.
    """
    ms = own_membership(world, membership_id)
    if not 1 <= months <= MAX_FREEZE_MONTHS:
        raise ToolError(f"A freeze lasts 1 to {MAX_FREEZE_MONTHS} months, not {months}.")
    if ms.status != "active":
        raise ToolError(
            f"Membership {ms.id} is {ms.status}; only active memberships can be frozen."
        )
    fee = freeze_fee(ms.currency, months)
    inv_id = add_invoice(world, ms, "freeze_fee", f"Freeze fee, {months} month(s)", fee)
    world.put(
        "memberships",
        ms.id,
        replace(
            ms, status="frozen", frozen_months=months, freezes_this_year=ms.freezes_this_year + 1
        ),
    )
    return {
        "membership_id": ms.id,
        "status": "frozen",
        "months": months,
        "invoice_id": inv_id,
        "freeze_fee": money_text(fee, ms.currency),
        "currency": ms.currency,
    }


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("unfreeze", "reactivate", "解冻"), keys=("membership_id",)),
)
def unfreeze_membership(world: MembershipWorld, membership_id: str) -> dict[str, Any]:
    """End the freeze of a frozen membership now; it is active again from today. No fee.
    Requires explicit confirmation.

    Args:
        membership_id: The membership id, e.g. "MS204518".
    """
    ms = own_membership(world, membership_id)
    if ms.status != "frozen":
        raise ToolError(f"Membership {ms.id} is {ms.status}, not frozen.")
    world.put("memberships", ms.id, replace(ms, status="active", frozen_months=0))
    return {"membership_id": ms.id, "status": "active"}


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("cancel", "取消"), keys=("membership_id", "fee")),
)
def cancel_membership(world: MembershipWorld, membership_id: str, fee: str) -> dict[str, Any]:
    """Cancel the membership. Inside the commitment period the cancellation fee from
    quote_cancellation is billed on a new invoice; after it there is no fee. Requires explicit
    confirmation of the membership id and the fee.

    Args:
        membership_id: The membership id, e.g. "MS204518".
        fee: The cancellation fee quoted by quote_cancellation, as a decimal string in the
            membership's currency, e.g. "149.97" ("0.00" after the commitment; whole numbers
            for JPY).
    """
    ms = own_membership(world, membership_id)
    if ms.status == "cancelled":
        raise ToolError(f"Membership {ms.id} is already cancelled.")
    try:
        given = Money.parse(fee, ms.currency)
    except (AmountError, CurrencyError) as exc:
        raise ToolError(str(exc)) from None
    due = cancellation_fee(ms)
    if given.amount != due:
        raise ToolError(
            f"The cancellation fee for {ms.id} is {money_text(due, ms.currency)} {ms.currency}, "
            f"not {given.to_decimal_string()}; quote it with quote_cancellation."
        )
    out: dict[str, Any] = {
        "membership_id": ms.id,
        "status": "cancelled",
        "fee": money_text(due, ms.currency),
        "currency": ms.currency,
    }
    if due:
        out["invoice_id"] = add_invoice(
            world, ms, "cancellation_fee", "Early cancellation fee", due
        )
    world.put("memberships", ms.id, replace(ms, status="cancelled", frozen_months=0))
    return out


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("waive", "免除"), keys=("invoice_id", "item_id")),
    free_text=("reason",),
)
def waive_fee(world: MembershipWorld, invoice_id: str, item_id: str, reason: str) -> dict[str, Any]:
    """Waive a late payment fee line on an unpaid invoice (at most one waiver per member in
    12 months). Requires explicit confirmation of the invoice and the line.

    Args:
        invoice_id: The invoice id, e.g. "INV-204518-06".
        item_id: The item id of the fee line (from list_invoices), e.g. "L48213".
        reason: One sentence for the record.
    """
    inv = world.invoice(invoice_id)
    line = world.line(inv, item_id)
    if line.waived:
        raise ToolError(f"Line {item_id} is already waived.")
    if inv.status == "paid":
        raise ToolError(f"Invoice {inv.id} is paid; a paid fee is refunded, not waived.")
    lines = tuple(replace(x, waived=True) if x.item_id == item_id else x for x in inv.lines)
    world.put("invoices", inv.id, replace(inv, lines=lines))
    ms = world.membership_of(inv.member_id)
    world.put("memberships", ms.id, replace(ms, late_fee_waivers_12m=ms.late_fee_waivers_12m + 1))
    return {
        "invoice_id": inv.id,
        "item_id": item_id,
        "waived": money_text(line.amount, inv.currency),
        "currency": inv.currency,
        "waivers_left": max(0, MAX_LATE_FEE_WAIVERS_12M - ms.late_fee_waivers_12m - 1),
    }


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("refund", "退款"), keys=("invoice_id", "item_id", "amount", "currency")),
    free_text=("reason",),
)
def request_refund(
    world: MembershipWorld, invoice_id: str, item_id: str, amount: str, currency: str, reason: str
) -> dict[str, Any]:
    """Ask for a refund of an overcharge on a paid invoice line (a duplicate line, a class
    drop-in charged while a paid class pack had sessions left, or the part above the list
    price). The request stays in the sandbox until a named human approves it. Requires explicit
    confirmation of the invoice, the line, the amount and the currency.

    Args:
        invoice_id: The invoice id, e.g. "INV-204518-06".
        item_id: The overcharged line's item id (from list_invoices).
        amount: The amount as a decimal string in the invoice's currency, e.g. "49.99".
        currency: The invoice's currency code, e.g. "EUR".
        reason: One sentence for the approver.
    """
    inv = world.invoice(invoice_id)
    world.line(inv, item_id)
    try:
        value = Money.parse(amount, currency)
    except (AmountError, CurrencyError) as exc:
        raise ToolError(str(exc)) from None
    world.backoffice.refund_requests.append(
        RefundRequest(
            f"{inv.id}/{item_id}", value.amount, value.currency, RefundState.REQUESTED.value, reason
        )
    )
    return {
        "invoice_id": inv.id,
        "item_id": item_id,
        "amount": value.to_decimal_string(),
        "currency": value.currency,
        "state": RefundState.REQUESTED.value,
    }


@tool(kind=ToolKind.WRITE)
def notify_customer(world: MembershipWorld, member_id: str, topic: Topic, reference: str) -> str:
    """Send the member the standard email for a change just made. Do this once after every
    change.

    Args:
        member_id: The member id, e.g. "M204518".
        topic: "plan_change", "freeze", "unfreeze", "cancellation", "fee_waiver" or "refund".
        reference: The membership id for plan changes, freezes, unfreezes and cancellations;
            the invoice id for fee waivers and refunds.
    """
    world.member(member_id)
    world.backoffice.notifications.append(Notification(member_id, topic, reference.strip()))
    return f"Notification {topic} sent to member {member_id}."


@tool(kind=ToolKind.WRITE, free_text=("text",))
def add_note(
    world: MembershipWorld, member_id: str, topic: Topic, reference: str, text: str
) -> str:
    """Record a note on the member's file about a change just made. Do this once after every
    change.

    Args:
        member_id: The member id, e.g. "M204518".
        topic: "plan_change", "freeze", "unfreeze", "cancellation", "fee_waiver" or "refund".
        reference: The membership id, or the invoice id for fee waivers and refunds.
        text: One or two sentences: what was asked, what was done, amounts.
    """
    world.member(member_id)
    if not text.strip():
        raise ToolError("A note needs some text.")
    key = f"{member_id}/{topic}/{reference.strip()}"
    world.put("notes", key, Note(member_id, topic, reference.strip(), text.strip()))
    return f"Note added to member {member_id}."


@tool(kind=ToolKind.WRITE, terminal=True, free_text=("summary",))
def transfer_to_human(
    world: MembershipWorld,
    category: HandoffCategory,
    summary: str,
    member_id: str = "",
    reference: str = "",
) -> str:
    """Hand the conversation to a named human colleague: a member disputing a charge, fee or
    adjustment ("dispute"), a request this policy does not cover ("out_of_policy"), suspected
    fraud ("fraud"), anything else you cannot handle ("other"). The conversation ends after the
    transfer, so tell the member in the same message.

    Args:
        category: "dispute", "out_of_policy", "fraud" or "other".
        summary: Two sentences for the human: who, what they dispute or want, what you checked.
        member_id: The verified member's id, if any.
        reference: The invoice or membership id concerned, if any.
    """
    if member_id and member_id not in world.tables["members"]:
        raise ToolError(f"No member with id {member_id!r}.")
    assignee = ROSTER[category]
    customer = member_id or world.session.verified_customer_id
    world.backoffice.handoffs.append(
        Handoff(category, assignee, customer, reference.strip(), summary)
    )
    return f"Transferred to {assignee}."
