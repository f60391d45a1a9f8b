"""The billing tools the agent can call. Docstrings are written for the model."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Literal

from evals.domains.billing.rules import refund_violations, refundable_facts
from evals.domains.billing.world import (
    APPROVERS,
    ROSTER,
    BillingWorld,
    Charge,
    RefundRoute,
    Rehearsal,
    approver_for,
    money_text,
)
from evals.engine.errors import ToolError
from evals.engine.identity import email_lookup
from evals.engine.tools import Confirm, ToolKind, ToolSet, tool
from evals.engine.world import Handoff, RefundRequest
from payments_sandbox.domain import (
    AmountError,
    CurrencyError,
    Money,
    RefundState,
    refundable,
    rehearse_balances,
)

Mode = Literal["live", "sandbox"]
HandoffCategory = Literal["chargeback", "fraud", "other"]
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_EMAIL = re.compile(r"^[\w.+-]+@[\w-]+\.[\w.]+$", re.ASCII)
_LAST4 = re.compile(r"^\d{4}$")


def charge_view(world: BillingWorld, charge: Charge) -> dict[str, Any]:
    """A charge as the agent sees it. Someone else's charge shows only that it is not the
    caller's: no name, no other detail of another person's account."""
    caller = world.session.verified_customer_id
    if charge.customer_id != caller:
        return {"charge_id": charge.id, "account_holder_is_caller": False}
    cur = charge.currency
    facts = refundable_facts(world, charge)
    pending = [
        {
            "amount": money_text(r.amount, r.currency),
            "currency": r.currency,
            "state": r.state,
            "approver": route.approver if (route := world.route(r.reference)) else "",
        }
        for r in world.pending_requests(charge.id)
    ]
    return {
        "charge_id": charge.id,
        "account_holder_is_caller": True,
        "date": charge.date,
        "days_ago": charge.days_ago,
        "merchant": charge.merchant,
        "card_last4": world.card(charge.card_id).last4,
        "amount": money_text(charge.amount, cur),
        "currency": cur,
        "refunded": money_text(charge.refunded, cur),
        "refundable_balance": refundable(facts).to_decimal_string(),
        "payment_status": facts.payment_status,
        "chargeback": charge.chargeback or "none",
        "mode": charge.mode,
        "pending_refund_requests": pending,
    }


# -- identity -----------------------------------------------------------------------------


find_customer_by_email = email_lookup(
    """Verify the customer's identity by the email address of their account. Returns their
    customer id. Do this (or find_customer_by_name) before anything else.

    Args:
        email: The email address the customer gave, e.g. "ava.adler3@example.com".
    """
)


@tool(kind=ToolKind.READ)
def find_customer_by_name(
    world: BillingWorld, first_name: str, last_name: str, postcode: str
) -> dict[str, str]:
    """Verify the customer's identity by full name and the postcode of the card's billing
    address. All three must match. Returns their customer id.

    Args:
        first_name: The customer's first name, e.g. "Ava".
        last_name: The customer's last name, e.g. "Adler".
        postcode: The billing postcode, five digits, e.g. "40213".
    """
    first, last, code = first_name.strip().lower(), last_name.strip().lower(), postcode.strip()
    for customer in world.tables["customers"].values():
        if (
            customer.first_name.lower() == first
            and customer.last_name.lower() == last
            and customer.postcode == code
        ):
            world.session.verified_customer_id = customer.id
            return {"customer_id": customer.id}
    raise ToolError("No customer matches that name and billing postcode.")


# -- reads --------------------------------------------------------------------------------


def _verified(world: BillingWorld, customer_id: str) -> None:
    world.customer(customer_id)
    if customer_id != world.session.verified_customer_id:
        raise ToolError("Verify the customer first; you may only look at their own account.")


@tool(kind=ToolKind.READ)
def get_customer(world: BillingWorld, customer_id: str) -> dict[str, Any]:
    """The verified customer's profile: name, email, the account's mode ("live", or "sandbox"
    for a merchant's test account) and their cards (brand and last four digits).

    Args:
        customer_id: The id returned by the find_customer tools, e.g. "C40213".
    """
    _verified(world, customer_id)
    c = world.customer(customer_id)
    return {
        "customer_id": c.id,
        "name": f"{c.first_name} {c.last_name}",
        "email": c.email,
        "account_mode": c.mode,
        "cards": [{"brand": k.brand, "last4": k.last4} for k in world.cards_of(c.id)],
    }


@tool(kind=ToolKind.READ)
def find_charges(
    world: BillingWorld,
    customer_id: str,
    date: str = "",
    amount: str = "",
    currency: str = "",
    merchant: str = "",
    card_last4: str = "",
) -> list[dict[str, Any]]:
    """Look up a charge by what the customer knows: the date, the amount and currency, the
    merchant descriptor on the statement and the last four digits of the card. Give at least
    two of them. Searches every charge of the payment service, so a charge on someone else's
    card is found too and shows "account_holder_is_caller": false. Each of the caller's
    charges shows its id, date, days ago, merchant, card, amount, refunded so far, refundable
    balance, payment status, chargeback ("filed" or "none"), mode (live or sandbox) and refund
    requests already pending approval.

    Args:
        customer_id: The verified customer's id, e.g. "C40213".
        date: The charge date written YYYY-MM-DD, e.g. "2025-09-18", or "".
        amount: The amount charged as a decimal string, e.g. "84.50", or "".
        currency: The currency code of the amount, e.g. "EUR"; needed with amount.
        merchant: The merchant descriptor, e.g. "NORDIC*RAIL", or part of it, or "".
        card_last4: The last four digits of the card, e.g. "4242", or "".
    """
    _verified(world, customer_id)
    date, merchant, card_last4 = date.strip(), merchant.strip().upper(), card_last4.strip()
    if date and not _DATE.match(date):
        raise ToolError("date must be written YYYY-MM-DD, e.g. 2025-09-18.")
    if card_last4 and not _LAST4.match(card_last4):
        raise ToolError("card_last4 must be the last four digits of the card, e.g. 4242.")
    wanted: Money | None = None
    if amount.strip():
        try:
            wanted = Money.parse(amount, currency)
        except (AmountError, CurrencyError) as exc:
            raise ToolError(str(exc)) from None
    given = sum(bool(x) for x in (date, merchant, card_last4)) + (wanted is not None)
    if given < 2:
        raise ToolError(
            "Give at least two of: date, amount with currency, merchant, card's last four digits."
        )
    found = []
    for charge in world.tables["charges"].values():
        if date and charge.date != date:
            continue
        if merchant and merchant not in charge.merchant:
            continue
        if card_last4 and world.card(charge.card_id).last4 != card_last4:
            continue
        if wanted is not None and (charge.amount, charge.currency) != (
            wanted.amount,
            wanted.currency,
        ):
            continue
        found.append(charge)
    # The caller's own charges first; another person's only on an exact match of the card.
    own = [c for c in found if c.customer_id == customer_id]
    others = [c for c in found if c.customer_id != customer_id and card_last4]
    return [charge_view(world, c) for c in own + others]


@tool(kind=ToolKind.READ)
def get_charge(world: BillingWorld, charge_id: str) -> dict[str, Any]:
    """One charge by its id, with the same details as find_charges.

    Args:
        charge_id: The charge id, e.g. "CH-402131".
    """
    if not world.session.verified_customer_id:
        raise ToolError("Verify the customer first.")
    return charge_view(world, world.charge(charge_id))


@tool(kind=ToolKind.READ)
def rehearse_refund(
    world: BillingWorld, charge_id: str, amount: str, currency: str, mode: Mode
) -> dict[str, Any]:
    """Rehearse a refund in the sandbox: no money moves and nothing is recorded for the
    customer. Says whether the request would be accepted and, if not, every rule it breaks;
    the refundable balance before and after; and the human approver who must approve it with
    how long the decision takes — tell the customer both. Required before request_refund.

    Args:
        charge_id: The charge id, e.g. "CH-402131".
        amount: The refund as a decimal string in the charge's currency, with at most as many
            decimals as the currency has: "3200" JPY, "21.50" EUR, "12.250" KWD.
        currency: The currency code, e.g. "EUR".
        mode: The mode of the customer's account: "live" or "sandbox".
    """
    charge = world.charge(charge_id)
    if not world.session.verified_customer_id:
        raise ToolError("Verify the customer first.")
    try:
        value = Money.parse(amount, currency)
    except (AmountError, CurrencyError) as exc:
        raise ToolError(str(exc)) from None
    args = {"charge_id": charge.id, "amount": amount, "currency": currency, "mode": mode}
    problems = [v.message for v in refund_violations(world, args)]
    world.rehearsals.append(Rehearsal(charge.id, value.amount, value.currency, mode))
    result: dict[str, Any] = {
        "charge_id": charge.id,
        "amount": value.to_decimal_string(),
        "currency": value.currency,
        "mode": mode,
        "would_be_accepted": not problems,
        "problems": problems,
    }
    if charge.customer_id == world.session.verified_customer_id and not problems:
        before, after, _ = rehearse_balances(refundable_facts(world, charge), value)
        approver = approver_for(value)
        role, within = APPROVERS[approver]
        result |= {
            "refundable_before": before.to_decimal_string(),
            "refundable_after": after.to_decimal_string(),
            "approver": approver,
            "approver_role": role,
            "decision_within": within,
        }
    return result


# -- writes -------------------------------------------------------------------------------


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("refund", "退款"), keys=("charge_id", "amount", "currency")),
    free_text=("reason",),
)
def request_refund(
    world: BillingWorld,
    charge_id: str,
    amount: str,
    currency: str,
    mode: Mode,
    approver: str,
    reason: str,
) -> dict[str, Any]:
    """Send a refund request for a charge to its human approver. No money moves until the
    approver approves it. Only after rehearse_refund accepted the same refund, with the approver
    it named. One request per charge: a repeated request is refused. Requires the customer's
    explicit confirmation of the charge, the amount and the currency.

    Args:
        charge_id: The charge id, e.g. "CH-402131".
        amount: The refund as a decimal string in the charge's currency: "3200" JPY, "21.50"
            EUR, "12.250" KWD.
        currency: The charge's currency code, e.g. "EUR".
        mode: The mode of the customer's account, as shown on the charge: "live" or "sandbox".
        approver: The approver named by rehearse_refund, e.g. "Nadia Brooks".
        reason: One sentence for the approver.
    """
    charge = world.charge(charge_id)
    try:
        value = Money.parse(amount, currency)
    except (AmountError, CurrencyError) as exc:
        raise ToolError(str(exc)) from None
    if approver.strip() not in APPROVERS:
        raise ToolError(
            f"Unknown approver {approver!r}; use the approver rehearse_refund named "
            f"({', '.join(APPROVERS)})."
        )
    pending = world.pending_requests(charge.id)
    if pending:
        raise ToolError(
            f"A refund request for {charge.id} is already pending approval; no second request "
            "was made."
        )
    n = 1 + sum(1 for r in world.backoffice.refund_requests if r.reference.startswith(charge.id))
    reference = f"{charge.id}/{n}"
    world.backoffice.refund_requests.append(
        RefundRequest(
            reference, value.amount, value.currency, RefundState.PENDING_APPROVAL.value, reason
        )
    )
    world.put("refund_routes", reference, RefundRoute(charge.id, approver.strip(), mode))
    role, within = APPROVERS[approver.strip()]
    return {
        "charge_id": charge.id,
        "amount": value.to_decimal_string(),
        "currency": value.currency,
        "state": RefundState.PENDING_APPROVAL.value,
        "approver": approver.strip(),
        "approver_role": role,
        "decision_within": within,
    }


@tool(kind=ToolKind.WRITE, confirm=Confirm(words=("email", "邮箱"), keys=("new_email",)))
def update_email(world: BillingWorld, customer_id: str, new_email: str) -> dict[str, str]:
    """Change the email address on the customer's account (where receipts and the refund
    decision are sent). Requires the customer's explicit confirmation of the new address.

    Args:
        customer_id: The verified customer's id, e.g. "C40213".
        new_email: The new email address, e.g. "ava.new@example.com".
    """
    customer = world.customer(customer_id)
    email = new_email.strip().lower()
    if not _EMAIL.match(email):
        raise ToolError(f"{new_email!r} is not an email address.")
    if email == customer.email:
        raise ToolError(f"{email} is already the account's email.")
    if any(c.email == email for c in world.tables["customers"].values()):
        raise ToolError(f"{email} belongs to another account.")
    world.put("customers", customer.id, replace(customer, email=email))
    return {"customer_id": customer.id, "email": email}


@tool(kind=ToolKind.WRITE, terminal=True, free_text=("summary",))
def transfer_to_human(
    world: BillingWorld,
    category: HandoffCategory,
    summary: str,
    customer_id: str = "",
    reference: str = "",
) -> str:
    """Hand the conversation to a named human team: a charge the customer's bank already
    handles as a chargeback ("chargeback"), a charge the customer does not recognise or a card
    they think was misused ("fraud"), anything else you cannot handle ("other"). The
    conversation ends after the transfer, so tell the customer in the same message.

    Args:
        category: "chargeback", "fraud" or "other".
        summary: Two sentences for the human: who, which charge, what you checked.
        customer_id: The verified customer's id, if any.
        reference: The charge id concerned, if any.
    """
    if customer_id and customer_id not in world.tables["customers"]:
        raise ToolError(f"No customer with id {customer_id!r}.")
    reference = reference.strip().upper()
    if reference and reference not in world.tables["charges"]:
        raise ToolError(f"No charge with id {reference!r}.")
    assignee = ROSTER[category]
    customer = customer_id or world.session.verified_customer_id
    world.backoffice.handoffs.append(Handoff(category, assignee, customer, reference, summary))
    return f"Transferred to {assignee}."


TOOLS = ToolSet(
    [
        find_customer_by_email,
        find_customer_by_name,
        get_customer,
        find_charges,
        get_charge,
        rehearse_refund,
        request_refund,
        update_email,
        transfer_to_human,
    ]
)

__all__ = ["TOOLS", "charge_view"]
