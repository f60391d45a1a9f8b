"""Deterministic policy checks run by the guard before every membership WRITE.

Refund rules are not restated here: amount, currency and refundable balance come from
payments_sandbox.domain, the rulebook the backoffice services enforce too. What this module
adds is the membership side: identity first, whose records these are, plan-change, freeze,
cancellation and waiver limits, and which charges are overcharges (a check-in never counts as
a paid entitlement).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evals.domains.membership.world import (
    MAX_FREEZE_MONTHS,
    MAX_FREEZES_PER_YEAR,
    MAX_LATE_FEE_WAIVERS_12M,
    PLANS,
    Invoice,
    MembershipWorld,
    cancellation_fee,
    line_overcharge,
    money_text,
)
from evals.engine.messages import Violation
from evals.engine.policy.verified import verified_first
from evals.engine.world import World
from payments_sandbox.domain import (
    PENDING_REFUND_STATES,
    AmountError,
    CurrencyError,
    Money,
    PaymentStatus,
    RefundableFacts,
    RefundState,
    check_refund_request,
    payment_status_after_refunds,
)

_MEMBERSHIP_TOOLS = {"change_plan", "freeze_membership", "unfreeze_membership", "cancel_membership"}
_INVOICE_TOOLS = {"waive_fee", "request_refund"}


def _requested(world: MembershipWorld, reference_prefix: str) -> int:
    return sum(
        r.amount
        for r in world.backoffice.refund_requests
        if r.reference.startswith(reference_prefix)
        and RefundState(r.state) in PENDING_REFUND_STATES
    )


def refundable_facts(world: MembershipWorld, inv: Invoice) -> RefundableFacts:
    """The invoice's payment as payments_sandbox.domain sees it. An unpaid invoice is a
    pending payment: nothing on it can be refunded."""
    captured = Money(inv.paid, inv.currency)
    refunded = Money(inv.refunded, inv.currency)
    status = (
        payment_status_after_refunds(captured, refunded)
        if inv.status == "paid"
        else PaymentStatus.PENDING
    )
    return RefundableFacts(
        captured=captured,
        refunded=refunded,
        pending=Money(_requested(world, f"{inv.id}/"), inv.currency),
        payment_status=status.value,
    )


@verified_first("Verify the member's identity first (email, or member number and date of birth).")
def check_rules(world: World, tool: str, args: Mapping[str, Any], verified: str) -> list[Violation]:
    assert isinstance(world, MembershipWorld)
    owner = _owner(world, tool, args)
    if owner is None:
        return []  # the tool itself answers "no such membership/invoice/member"
    if owner != verified:
        return [Violation("other_member", "You may only act on the verified member's own records.")]
    if tool in _MEMBERSHIP_TOOLS:
        return _membership_violations(world, tool, args)
    if tool == "waive_fee":
        return _waiver_violations(world, args)
    if tool == "request_refund":
        return _refund_violations(world, args)
    return []


def _owner(world: MembershipWorld, tool: str, args: Mapping[str, Any]) -> str | None:
    if tool in _MEMBERSHIP_TOOLS:
        ms = world.tables["memberships"].get(args.get("membership_id", ""))
        return ms.member_id if ms else None
    if tool in _INVOICE_TOOLS:
        inv = world.tables["invoices"].get(args.get("invoice_id", ""))
        return inv.member_id if inv else None
    member_id = args.get("member_id", "")
    return member_id if member_id in world.tables["members"] else None


def _membership_violations(
    world: MembershipWorld, tool: str, args: Mapping[str, Any]
) -> list[Violation]:
    ms = world.tables["memberships"][args["membership_id"]]
    found: list[Violation] = []
    if tool == "change_plan":
        if ms.status != "active":
            found.append(
                Violation(
                    "status",
                    f"Membership {ms.id} is {ms.status}; only active memberships change plan.",
                )
            )
        new = PLANS.get(str(args.get("new_plan_id")))
        if new is not None and new.rank < PLANS[ms.plan_id].rank and ms.commitment_months_left > 0:
            found.append(
                Violation(
                    "downgrade_in_commitment",
                    f"Membership {ms.id} is inside its commitment until {ms.commitment_end}; "
                    "downgrades are only possible after it ends.",
                )
            )
    elif tool == "freeze_membership":
        if ms.status != "active":
            found.append(
                Violation(
                    "status",
                    f"Membership {ms.id} is {ms.status}; only active memberships can be frozen.",
                )
            )
        if ms.freezes_this_year >= MAX_FREEZES_PER_YEAR:
            found.append(
                Violation(
                    "freeze_limit",
                    f"{ms.freezes_this_year} freezes were already used this year; the limit is "
                    f"{MAX_FREEZES_PER_YEAR}.",
                )
            )
        months = args.get("months", 0)
        if not 1 <= months <= MAX_FREEZE_MONTHS:
            found.append(
                Violation("freeze_length", f"A freeze lasts 1 to {MAX_FREEZE_MONTHS} months.")
            )
    elif tool == "unfreeze_membership":
        if ms.status != "frozen":
            found.append(Violation("status", f"Membership {ms.id} is {ms.status}, not frozen."))
    elif tool == "cancel_membership":
        if ms.status == "cancelled":
            found.append(Violation("status", f"Membership {ms.id} is already cancelled."))
        due = cancellation_fee(ms)
        try:
            given = Money.parse(str(args.get("fee", "")), ms.currency).amount
        except (AmountError, CurrencyError) as exc:
            return [*found, Violation("invalid_amount", str(exc))]
        if given != due:
            found.append(
                Violation(
                    "cancellation_fee",
                    f"Inside the commitment a cancellation carries its fee; the fee for {ms.id} is "
                    f"{money_text(due, ms.currency)} {ms.currency}, not {money_text(given, ms.currency)}.",
                )
            )
    return found


def _waiver_violations(world: MembershipWorld, args: Mapping[str, Any]) -> list[Violation]:
    inv = world.tables["invoices"][args["invoice_id"]]
    line = next((x for x in inv.lines if x.item_id == args.get("item_id")), None)
    if line is None:
        return []
    found: list[Violation] = []
    if line.kind != "late_fee":
        found.append(
            Violation(
                "not_waivable",
                f"Only late payment fees can be waived; line {line.item_id} is {line.kind}.",
            )
        )
    ms = world.membership_of(inv.member_id)
    if ms.late_fee_waivers_12m >= MAX_LATE_FEE_WAIVERS_12M:
        found.append(
            Violation(
                "waiver_limit",
                f"The member already had {ms.late_fee_waivers_12m} late-fee waiver in the last 12 months; "
                f"at most {MAX_LATE_FEE_WAIVERS_12M} is allowed.",
            )
        )
    return found


def _refund_violations(world: MembershipWorld, args: Mapping[str, Any]) -> list[Violation]:
    inv = world.tables["invoices"][args["invoice_id"]]
    line = next((x for x in inv.lines if x.item_id == args.get("item_id")), None)
    try:
        amount = Money.parse(str(args.get("amount", "")), str(args.get("currency", "")))
    except (AmountError, CurrencyError) as exc:
        return [Violation("invalid_amount", str(exc))]
    found: list[Violation] = []
    if line is not None:
        over = line_overcharge(world, inv, line) - _requested(world, f"{inv.id}/{line.item_id}")
        if over <= 0:
            found.append(
                Violation(
                    "not_overcharged",
                    f"Line {line.item_id} ({line.description}) was charged correctly, so there is no "
                    "overcharge to refund. Only paid entitlements (list_entitlements) cover a charge; "
                    "check-ins never do.",
                )
            )
        elif amount.currency == inv.currency and amount.amount > over:
            found.append(
                Violation(
                    "exceeds_overcharge",
                    f"The overcharge left on line {line.item_id} is {money_text(over, inv.currency)} "
                    f"{inv.currency}; a refund may not exceed it.",
                )
            )
    found += [
        Violation(v.code, v.message)
        for v in check_refund_request(refundable_facts(world, inv), amount)
    ]
    return found
