"""Deterministic policy checks run by the guard before every telecom WRITE of the agent.

Money: a bill is paid in its own currency, with amounts read by payments_sandbox.domain
(`Money.parse`), the rulebook the backoffice services use too (the tool pays only the full
amount). The
telecom side: identity first, the verified customer's own lines and bills only, a line
suspended for an unpaid bill resumes only once no bill is overdue (a fraud review is never
resumed here), roaming only on plans that include it and never with an overdue bill, top-ups
only on active capped lines, one SIM replacement in 30 days.

The customer's own tools (its phone) are not guarded: the policy binds the agent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evals.domains.telecom.world import (
    PLANS,
    SIM_REPLACEMENT_DAYS,
    TOPUP_PRICE,
    Line,
    TelecomWorld,
    money_text,
)
from evals.engine.messages import Violation
from evals.engine.world import World
from payments_sandbox.domain import AmountError, CurrencyError, Money

_LINE_TOOLS = {
    "resume_line",
    "add_data_topup",
    "change_plan",
    "enable_roaming",
    "send_puk_code",
    "push_network_settings",
    "issue_esim",
}


def check_rules(world: World, tool: str, args: Mapping[str, Any]) -> list[Violation]:
    assert isinstance(world, TelecomWorld)
    if tool == "transfer_to_human":
        return []
    if tool not in _LINE_TOOLS and tool != "pay_bill":
        return []  # the customer's own phone: not the agent's to guard
    verified = world.session.verified_customer_id
    if not verified:
        return [
            Violation(
                "identity_not_verified",
                "Verify the customer's identity first (email, or phone number and date of birth).",
            )
        ]
    if tool == "pay_bill":
        return _bill_rules(world, verified, args)
    line = world.tables["lines"].get(str(args.get("line_id", "")))
    if line is None:
        return []
    if line.customer_id != verified:
        return [
            Violation("other_customer", "You may only act on the verified customer's own lines.")
        ]
    return _line_rules(world, verified, line, tool, args)


def _bill_rules(world: TelecomWorld, verified: str, args: Mapping[str, Any]) -> list[Violation]:
    """A payment: the verified customer's own bill, paid as the policy allows."""
    bill = world.tables["bills"].get(str(args.get("bill_id", "")))
    if bill is None:
        return []  # the tool answers "no such bill"
    if bill.customer_id != verified:
        return [
            Violation("other_customer", "You may only act on the verified customer's own bills.")
        ]
    return _payment_violations(bill, args)


def _line_rules(
    world: TelecomWorld, verified: str, line: Line, tool: str, args: Mapping[str, Any]
) -> list[Violation]:
    """A change to one of the verified customer's lines: what its status, suspension, plan,
    SIM and the customer's overdue bills allow."""
    overdue = world.overdue_bills(verified)
    found: list[Violation] = []
    if tool == "resume_line":
        if line.suspension_reason == "fraud_review":
            found.append(
                Violation(
                    "fraud_review",
                    f"Line {line.id} is suspended for a fraud review; only the fraud desk can "
                    "lift it. Transfer the customer (category fraud).",
                )
            )
        elif overdue:
            found.append(
                Violation(
                    "overdue_bill",
                    f"Line {line.id} can be resumed only once every overdue bill is paid in "
                    f"full ({', '.join(b.id for b in overdue)} is overdue).",
                )
            )
    elif tool in ("add_data_topup", "change_plan", "enable_roaming", "issue_esim"):
        if line.status != "active" and tool != "issue_esim":
            found.append(Violation("line_not_active", f"Line {line.id} is {line.status}."))
        if tool == "issue_esim" and line.suspension_reason == "fraud_review":
            found.append(Violation("fraud_review", f"Line {line.id} is under a fraud review."))
    if tool == "add_data_topup":
        if args.get("gigabytes") not in TOPUP_PRICE:
            found.append(Violation("topup_size", "A top-up is 1 or 5 GB."))
        if not line.data_limit_mb:
            found.append(Violation("unlimited", f"Line {line.id} has unlimited data."))
    elif tool == "enable_roaming":
        if not PLANS[line.plan_id].roaming:
            found.append(
                Violation(
                    "roaming_not_on_plan",
                    f"Roaming is not available on the {PLANS[line.plan_id].name} plan; the "
                    "customer must first move to Plus or Unlimited.",
                )
            )
        if overdue:
            found.append(
                Violation("overdue_bill", "Roaming cannot be enabled while a bill is overdue.")
            )
    elif tool == "issue_esim" and line.sim_changed_days_ago < SIM_REPLACEMENT_DAYS:
        found.append(
            Violation(
                "sim_replaced_recently",
                f"The SIM of line {line.id} was changed {line.sim_changed_days_ago} days ago; "
                f"a SIM can be replaced once in {SIM_REPLACEMENT_DAYS} days.",
            )
        )
    return found


def _payment_violations(bill: Any, args: Mapping[str, Any]) -> list[Violation]:
    """A paid bill is not paid again, and the amount must be money in the bill's currency
    (payments_sandbox.domain reads it). That it is the bill's full amount the tool itself
    enforces: an agent that writes another amount than the one the customer confirmed is
    stopped by the confirmation rule, and the oracle names that wrong arguments."""
    if bill.status == "paid":
        return [Violation("already_paid", f"Bill {bill.id} is already paid.")]
    try:
        money = Money.parse(str(args.get("amount", "")), str(args.get("currency", "")))
    except (AmountError, CurrencyError) as exc:
        return [Violation("invalid_amount", str(exc))]
    if money.currency != bill.currency:
        return [
            Violation(
                "wrong_currency",
                f"Bill {bill.id} is in {bill.currency}; it is paid in full in its own currency "
                f"({money_text(bill.amount, bill.currency)} {bill.currency}).",
            )
        ]
    return []
