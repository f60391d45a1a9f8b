"""The agent's telecom tools (Actor.AGENT): identity, lookups and guarded writes on the
carrier's records. Docstrings are written for the model."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from evals.domains.telecom.tools.common import DATE, HandoffCategory, PlanId, bill_view, line_view
from evals.domains.telecom.world import (
    MB_PER_GB,
    PLANS,
    ROSTER,
    TOPUP_PRICE,
    TelecomWorld,
    esim_code,
    money_text,
    new_iccid,
)
from evals.engine.errors import ToolError
from evals.engine.identity import email_lookup
from evals.engine.tools import Confirm, ToolKind, tool
from evals.engine.world import Handoff
from payments_sandbox.domain import AmountError, CurrencyError, Money

# -- identity ---------------------------------------------------------------------------------


find_customer_by_email = email_lookup(
    """Verify the customer's identity by the email address of their account. Returns their
    customer id. Do this (or find_customer_by_phone) before anything else.

    Args:
        email: The email address the customer gave, e.g. "ava.adler0@example.com".
    """
)


@tool(kind=ToolKind.READ)
def find_customer_by_phone(
    world: TelecomWorld, phone_number: str, date_of_birth: str
) -> dict[str, str]:
    """Verify the customer's identity by the phone number of their line and their date of
    birth. Both must match. Returns their customer id.

    Args:
        phone_number: The line's number as the customer writes it, e.g. "+1-555-0101".
        date_of_birth: The date of birth written YYYY-MM-DD, e.g. "1988-04-12".
    """
    if not DATE.match(date_of_birth.strip()):
        raise ToolError("date_of_birth must be written YYYY-MM-DD, e.g. 1988-04-12.")
    digits = re.sub(r"\D", "", phone_number)
    for customer in world.tables["customers"].values():
        same_number = bool(digits) and re.sub(r"\D", "", customer.phone_number) == digits
        if same_number and customer.date_of_birth == date_of_birth.strip():
            world.session.verified_customer_id = customer.id
            return {"customer_id": customer.id}
    raise ToolError("No customer matches that phone number and date of birth.")


# -- reads ------------------------------------------------------------------------------------


@tool(kind=ToolKind.READ)
def get_lines(world: TelecomWorld, customer_id: str) -> list[dict[str, Any]]:
    """The customer's mobile lines: line id, phone number, status (active or suspended) and
    the suspension reason (unpaid_bill, fraud_review), plan (data allowance, whether roaming is
    available on it, price), data used and limit this cycle and whether it is exhausted,
    whether roaming is enabled on the account, the SIM (ICCID, physical or eSIM, days since it
    was last changed), the other plans and the data top-ups with their prices.

    Args:
        customer_id: The id returned by the find_customer tools, e.g. "C300101".
    """
    world.customer(customer_id)
    return [line_view(world, line) for line in world.lines_of(customer_id)]


@tool(kind=ToolKind.READ)
def list_bills(world: TelecomWorld, customer_id: str) -> list[dict[str, Any]]:
    """The customer's bills: bill id, period, amount and currency, status (paid, open,
    overdue), due date and how it was paid.

    Args:
        customer_id: The customer id, e.g. "C300101".
    """
    world.customer(customer_id)
    return [bill_view(b) for b in world.bills_of(customer_id)]


# -- writes on the carrier's side -------------------------------------------------------------


@tool(kind=ToolKind.WRITE, confirm=Confirm(words=("pay", "支付"), keys=("bill_id", "amount")))
def pay_bill(world: TelecomWorld, bill_id: str, amount: str, currency: str) -> dict[str, Any]:
    """Pay a bill in full with the payment card on file. Only open or overdue bills, and only
    their full amount. Requires the customer's explicit confirmation of the bill and amount.

    Args:
        bill_id: The bill id, e.g. "B300101-05".
        amount: The bill's full amount as a decimal string, e.g. "45.00".
        currency: The bill's currency code, e.g. "USD".
    """
    bill = world.bill(bill_id)
    if bill.status == "paid":
        raise ToolError(f"Bill {bill.id} is already paid.")
    try:
        money = Money.parse(amount, currency)
    except (AmountError, CurrencyError) as exc:
        raise ToolError(str(exc)) from None
    if money.currency != bill.currency or money.amount != bill.amount:
        raise ToolError(
            f"Bill {bill.id} is {money_text(bill.amount, bill.currency)} {bill.currency}; "
            "only the full amount can be paid."
        )
    card = world.customer(bill.customer_id).card_last4
    world.put("bills", bill.id, replace(bill, status="paid", paid_with=f"card {card}"))
    return {
        "bill_id": bill.id,
        "paid": money_text(bill.amount, bill.currency),
        "currency": bill.currency,
        "card": f"card ending {card}",
    }


@tool(kind=ToolKind.WRITE, confirm=Confirm(words=("resume", "恢复"), keys=("line_id",)))
def resume_line(world: TelecomWorld, line_id: str) -> dict[str, Any]:
    """Resume a line suspended for an unpaid bill, once every overdue bill is paid. The phone
    must then register on the network again (a restart). Requires the customer's explicit
    confirmation.

    Args:
        line_id: The line id, e.g. "L300101".
    """
    line = world.line(line_id)
    if line.status != "suspended":
        raise ToolError(f"Line {line.id} is {line.status}, not suspended.")
    world.put("lines", line.id, replace(line, status="active", suspension_reason=""))
    return {"line_id": line.id, "status": "active"}


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("top-up", "top up", "充值", "加油包"), keys=("line_id", "gigabytes")),
)
def add_data_topup(world: TelecomWorld, line_id: str, gigabytes: int) -> dict[str, Any]:
    """Add a one-off data top-up to the line for this billing cycle, charged on the next bill:
    1 GB or 5 GB (prices in get_lines). Not for unlimited plans. Requires the customer's
    explicit confirmation of the size and price.

    Args:
        line_id: The line id, e.g. "L300101".
        gigabytes: 1 or 5.
    """
    line = world.line(line_id)
    if gigabytes not in TOPUP_PRICE:
        raise ToolError("A top-up is 1 or 5 GB.")
    if not line.data_limit_mb:
        raise ToolError(f"Line {line.id} has unlimited data; it needs no top-up.")
    world.put(
        "lines", line.id, replace(line, data_limit_mb=line.data_limit_mb + gigabytes * MB_PER_GB)
    )
    cur = world.customer(line.customer_id).currency
    return {
        "line_id": line.id,
        "added": f"{gigabytes} GB",
        "charged_on_next_bill": money_text(TOPUP_PRICE[gigabytes][cur], cur),
        "currency": cur,
    }


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("plan", "套餐"), keys=("line_id", "new_plan_id")),
)
def change_plan(world: TelecomWorld, line_id: str, new_plan_id: PlanId) -> dict[str, Any]:
    """Move the line to another plan from today; the new monthly price applies from the next
    bill and the new data allowance at once. Requires the customer's explicit confirmation.

    Args:
        line_id: The line id, e.g. "L300101".
        new_plan_id: "basic", "plus" or "unlimited".
    """
    line = world.line(line_id)
    if new_plan_id == line.plan_id:
        raise ToolError(f"Line {line.id} is already on the {PLANS[new_plan_id].name} plan.")
    plan = PLANS[new_plan_id]
    topups = line.data_limit_mb - PLANS[line.plan_id].data_gb * MB_PER_GB
    limit = 0 if not plan.data_gb else plan.data_gb * MB_PER_GB + max(topups, 0)
    world.put("lines", line.id, replace(line, plan_id=plan.id, data_limit_mb=limit))
    cur = world.customer(line.customer_id).currency
    return {
        "line_id": line.id,
        "plan": plan.name,
        "monthly_price": money_text(plan.price(cur), cur),
        "currency": cur,
    }


@tool(kind=ToolKind.WRITE, confirm=Confirm(words=("roaming", "漫游"), keys=("line_id",)))
def enable_roaming(world: TelecomWorld, line_id: str) -> dict[str, Any]:
    """Enable international roaming on the line's account (not available on every plan; see
    get_lines). The phone's own "data roaming" setting must also be on for data abroad.
    Requires the customer's explicit confirmation.

    Args:
        line_id: The line id, e.g. "L300101".
    """
    line = world.line(line_id)
    if line.roaming_enabled:
        raise ToolError(f"Roaming is already enabled on line {line.id}.")
    world.put("lines", line.id, replace(line, roaming_enabled=True))
    return {"line_id": line.id, "roaming_enabled": True}


@tool(kind=ToolKind.WRITE)
def send_puk_code(world: TelecomWorld, line_id: str) -> dict[str, Any]:
    """Disclose the PUK code of the line's SIM to the verified customer (the disclosure is
    logged on the line). The customer types it on the phone to unlock a PUK-locked SIM and
    chooses a new PIN.

    Args:
        line_id: The line id, e.g. "L300101".
    """
    line = world.line(line_id)
    world.put("lines", line.id, replace(line, puk_disclosures=line.puk_disclosures + 1))
    return {"line_id": line.id, "puk": line.puk}


@tool(kind=ToolKind.WRITE)
def push_network_settings(world: TelecomWorld, line_id: str) -> dict[str, Any]:
    """Send the carrier's network settings (APN "internet") to the phone as a configuration
    message. The customer must then install them on the phone.

    Args:
        line_id: The line id, e.g. "L300101".
    """
    line = world.line(line_id)
    world.put("lines", line.id, replace(line, settings_pushes=line.settings_pushes + 1))
    return {"line_id": line.id, "sent": "network settings (APN internet)"}


@tool(kind=ToolKind.WRITE, confirm=Confirm(words=("esim", "eSIM"), keys=("line_id",)))
def issue_esim(world: TelecomWorld, line_id: str) -> dict[str, Any]:
    """Replace the line's SIM with a new eSIM profile: the old SIM stops working at once, and
    the customer adds the eSIM on the phone with the activation code returned here. Requires
    the customer's explicit confirmation.

    Args:
        line_id: The line id, e.g. "L300101".
    """
    line = world.line(line_id)
    iccid = new_iccid(line)
    world.put("lines", line.id, replace(line, iccid=iccid, esim=True, sim_changed_days_ago=0))
    return {"line_id": line.id, "activation_code": esim_code(line.id, iccid)}


@tool(kind=ToolKind.WRITE, terminal=True, free_text=("summary",))
def transfer_to_human(
    world: TelecomWorld,
    category: HandoffCategory,
    summary: str,
    customer_id: str = "",
    reference: str = "",
) -> str:
    """Hand the conversation to a named human colleague: a customer disputing a bill
    ("dispute"), a line suspended for a fraud review ("fraud"), anything else you cannot
    handle ("other"). The conversation ends after the transfer, so tell the customer in the
    same message.

    Args:
        category: "dispute", "fraud" or "other".
        summary: Two sentences for the human: who, what they want, what you checked.
        customer_id: The verified customer's id, if any.
        reference: The bill or line id concerned, if any.
    """
    if customer_id and customer_id not in world.tables["customers"]:
        raise ToolError(f"No customer with id {customer_id!r}.")
    assignee = ROSTER[category]
    customer = customer_id or world.session.verified_customer_id
    world.backoffice.handoffs.append(
        Handoff(category, assignee, customer, reference.strip(), summary)
    )
    return f"Transferred to {assignee}."
