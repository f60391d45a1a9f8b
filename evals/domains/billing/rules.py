"""Deterministic policy checks run by the guard before every billing WRITE.

The money rules are not restated here: amount format per currency (0, 2 or 3 decimals),
currency match, what is refundable (captured minus refunded minus pending) and whether the
payment can be refunded at all come from payments_sandbox.domain, the rulebook the backoffice
services enforce too. What this module adds is the dispute desk's side: identity first, only
the account holder's own charges, the dispute window, no refund while the bank handles a
chargeback, one open refund request per charge (a repeated request creates no second refund),
the request's mode equal to the account's (sandbox and live never mix), a sandbox rehearsal of
the charge in this conversation first, and the approver the rehearsal named.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evals.domains.billing.world import (
    DISPUTE_WINDOW_DAYS,
    BillingWorld,
    Charge,
    approver_for,
    money_text,
)
from evals.engine.messages import Violation
from evals.engine.policy.verified import verified_first
from evals.engine.world import World
from payments_sandbox.domain import (
    AmountError,
    CurrencyError,
    Money,
    RefundableFacts,
    check_refund_request,
    payment_status_after_refunds,
)


def refundable_facts(world: BillingWorld, charge: Charge) -> RefundableFacts:
    """The charge as payments_sandbox.domain sees it: captured, refunded, and the requests
    still waiting for approval reserved against it."""
    captured = Money(charge.amount, charge.currency)
    refunded = Money(charge.refunded, charge.currency)
    pending = sum(r.amount for r in world.pending_requests(charge.id))
    return RefundableFacts(
        captured=captured,
        refunded=refunded,
        pending=Money(pending, charge.currency),
        payment_status=payment_status_after_refunds(captured, refunded).value,
    )


@verified_first("Verify the customer first (email, or full name and billing postcode).")
def check_rules(world: World, tool: str, args: Mapping[str, Any], verified: str) -> list[Violation]:
    assert isinstance(world, BillingWorld)
    if tool == "update_email":
        if args.get("customer_id") != verified:
            return [
                Violation("other_customer", "You may only change the verified customer's details.")
            ]
        return []
    if tool == "request_refund":
        return refund_violations(world, args)
    return []


def refund_violations(world: BillingWorld, args: Mapping[str, Any]) -> list[Violation]:
    """Every rule a refund request breaks; empty when it may go to its approver. Also what the
    sandbox rehearsal reports, so the rehearsal and the guard never disagree."""
    charge = world.tables["charges"].get(str(args.get("charge_id", "")).strip().upper())
    if charge is None:
        return []  # the tool itself answers "no such charge"
    if charge.customer_id != world.session.verified_customer_id:
        return [
            Violation(
                "other_customer",
                f"Charge {charge.id} is not on the verified customer's account; only the account "
                "holder can dispute a charge.",
            )
        ]
    found: list[Violation] = []
    if charge.chargeback:
        found.append(
            Violation(
                "chargeback_filed",
                f"A chargeback is already filed with the bank for {charge.id}; the chargeback "
                "team handles it, no refund may be requested.",
            )
        )
    if charge.days_ago > DISPUTE_WINDOW_DAYS:
        found.append(
            Violation(
                "outside_dispute_window",
                f"Charge {charge.id} was made {charge.days_ago} days ago; charges can be disputed "
                f"within {DISPUTE_WINDOW_DAYS} days.",
            )
        )
    pending = world.pending_requests(charge.id)
    if pending:
        route = world.route(pending[0].reference)
        who = f" by {route.approver}" if route else ""
        found.append(
            Violation(
                "duplicate_request",
                f"A refund request of {money_text(pending[0].amount, pending[0].currency)} "
                f"{pending[0].currency} for {charge.id} is already pending approval{who}; a "
                "repeated request creates no second refund.",
            )
        )
    mode = str(args.get("mode", ""))
    if mode and mode != charge.mode:
        found.append(
            Violation(
                "mode_mismatch",
                f"Charge {charge.id} is a {charge.mode} charge; a {mode} refund request may not "
                "touch it (sandbox and live never mix).",
            )
        )
    try:
        amount = Money.parse(str(args.get("amount", "")), str(args.get("currency", "")))
    except (AmountError, CurrencyError) as exc:
        return [*found, Violation("invalid_amount", str(exc))]
    found += [
        Violation(v.code, v.message)
        for v in check_refund_request(refundable_facts(world, charge), amount)
    ]
    if "approver" in args:
        # By charge, not by amount: a request that differs from what the customer confirmed is
        # the confirmation rule's to catch (wrong arguments), not a missing rehearsal.
        if not any(r.charge_id == charge.id for r in world.rehearsals):
            found.append(
                Violation(
                    "not_rehearsed",
                    f"Rehearse this refund of {charge.id} in the sandbox first (rehearse_refund) "
                    "and read the result.",
                )
            )
        if amount.currency == charge.currency and args.get("approver") != approver_for(amount):
            found.append(
                Violation(
                    "wrong_approver",
                    f"A refund of {amount.format()} is approved by {approver_for(amount)}, as the "
                    "rehearsal says.",
                )
            )
    return found
