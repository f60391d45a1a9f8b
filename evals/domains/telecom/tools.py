"""The telecom tools. The agent's (Actor.AGENT) read and change the carrier's records; the
customer's (Actor.USER) read and change its own phone. Docstrings are written for the model."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal

from evals.domains.telecom.world import (
    APN,
    MB_PER_GB,
    PLANS,
    ROSTER,
    TOPUP_PRICE,
    Bill,
    Line,
    TelecomWorld,
    app_data_allowed,
    data_works,
    esim_code,
    money_text,
    new_iccid,
    signal,
)
from evals.engine.errors import ToolError
from evals.engine.identity import email_lookup
from evals.engine.tools import Actor, Confirm, ToolKind, ToolSet, tool
from evals.engine.world import Handoff
from payments_sandbox.domain import AmountError, CurrencyError, Money

PlanId = Literal["basic", "plus", "unlimited"]
HandoffCategory = Literal["dispute", "fraud", "other"]
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def line_view(world: TelecomWorld, line: Line) -> dict[str, Any]:
    plan = PLANS[line.plan_id]
    customer = world.customer(line.customer_id)
    cur = customer.currency
    return {
        "line_id": line.id,
        "phone_number": line.phone_number,
        "status": line.status,
        "suspension_reason": line.suspension_reason,
        "plan": {
            "plan_id": plan.id,
            "name": plan.name,
            "monthly_price": money_text(plan.price(cur), cur),
            "data": "unlimited" if not plan.data_gb else f"{plan.data_gb} GB",
            "roaming_available": plan.roaming,
        },
        "currency": cur,
        "data_used_mb": line.data_used_mb,
        "data_limit_mb": line.data_limit_mb or "unlimited",
        "data_exhausted": bool(line.data_limit_mb) and line.data_used_mb >= line.data_limit_mb,
        "roaming_enabled": line.roaming_enabled,
        "sim": {
            "iccid": line.iccid,
            "type": "eSIM" if line.esim else "physical SIM",
            "last_changed_days_ago": line.sim_changed_days_ago,
        },
        "other_plans": [
            {"plan_id": p.id, "name": p.name, "monthly_price": money_text(p.price(cur), cur)}
            for p in PLANS.values()
            if p.id != plan.id
        ],
        "topups": {f"{gb} GB": money_text(prices[cur], cur) for gb, prices in TOPUP_PRICE.items()},
    }


def bill_view(bill: Bill) -> dict[str, Any]:
    return {
        "bill_id": bill.id,
        "period": bill.period,
        "amount": money_text(bill.amount, bill.currency),
        "currency": bill.currency,
        "status": bill.status,
        "due_date": bill.due_date,
        "paid_with": bill.paid_with,
    }


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
    if not _DATE.match(date_of_birth.strip()):
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


# -- the customer's own phone (Actor.USER) ----------------------------------------------------


@tool(kind=ToolKind.READ, actor=Actor.USER)
def check_status_bar(world: TelecomWorld) -> dict[str, Any]:
    """Look at your phone's status bar: the signal ("4 bars", "no service", "airplane mode",
    "no SIM", "SIM locked"), the network, and whether mobile data works."""
    bars = signal(world)
    abroad = world.device().location == "abroad"
    return {
        "signal": bars,
        "network": ("5G roaming" if abroad else "5G") if bars == "4 bars" else "",
        "mobile_data": "working" if data_works(world) else "not working",
    }


@tool(kind=ToolKind.READ, actor=Actor.USER)
def check_network_settings(world: TelecomWorld) -> dict[str, Any]:
    """Open your phone's network settings: airplane mode, mobile data and data roaming (on or
    off), and the access point name (APN)."""
    d = world.device()
    return {
        "airplane_mode": "on" if d.airplane_mode else "off",
        "mobile_data": "on" if d.mobile_data else "off",
        "data_roaming": "on" if d.data_roaming else "off",
        "apn": d.apn,
    }


@tool(kind=ToolKind.READ, actor=Actor.USER)
def check_sim(world: TelecomWorld) -> dict[str, Any]:
    """Look at your phone's SIM screen: the SIM status ("ready", "PUK locked", "not
    detected")."""
    d = world.device()
    return {
        "sim_status": {"puk_locked": "PUK locked", "not_detected": "not detected"}.get(
            d.sim_status, d.sim_status
        )
    }


@tool(kind=ToolKind.READ, actor=Actor.USER)
def check_app_permissions(world: TelecomWorld, app: str) -> dict[str, Any]:
    """Open an app's settings on your phone: whether it may use mobile data.

    Args:
        app: The app's name, e.g. "Maps".
    """
    known = dict(world.device().app_data)
    if app not in known:
        raise ToolError(f"There is no app called {app!r} on this phone.")
    return {"app": app, "mobile_data": "allowed" if known[app] else "not allowed"}


@tool(kind=ToolKind.WRITE, actor=Actor.USER)
def set_airplane_mode(world: TelecomWorld, on: bool) -> dict[str, Any]:
    """Turn airplane mode on or off on your phone.

    Args:
        on: true to turn it on, false to turn it off.
    """
    world.put_device(replace(world.device(), airplane_mode=on))
    return {"airplane_mode": "on" if on else "off"}


@tool(kind=ToolKind.WRITE, actor=Actor.USER)
def set_mobile_data(world: TelecomWorld, on: bool) -> dict[str, Any]:
    """Turn mobile data on or off on your phone.

    Args:
        on: true to turn it on, false to turn it off.
    """
    world.put_device(replace(world.device(), mobile_data=on))
    return {"mobile_data": "on" if on else "off"}


@tool(kind=ToolKind.WRITE, actor=Actor.USER)
def set_data_roaming(world: TelecomWorld, on: bool) -> dict[str, Any]:
    """Turn data roaming on or off on your phone.

    Args:
        on: true to turn it on, false to turn it off.
    """
    world.put_device(replace(world.device(), data_roaming=on))
    return {"data_roaming": "on" if on else "off"}


@tool(kind=ToolKind.WRITE, actor=Actor.USER)
def restart_device(world: TelecomWorld) -> dict[str, Any]:
    """Restart your phone; it registers on the network again."""
    world.put_device(replace(world.device(), needs_restart=False))
    return {"restarted": True}


@tool(kind=ToolKind.WRITE, actor=Actor.USER)
def unlock_sim(world: TelecomWorld, puk: str, new_pin: str) -> dict[str, Any]:
    """Unlock a PUK-locked SIM on your phone with the PUK code and choose a new 4-digit PIN.

    Args:
        puk: The 8-digit PUK code the carrier gave you.
        new_pin: The new PIN you choose, 4 digits.
    """
    d = world.device()
    if d.sim_status != "puk_locked":
        raise ToolError("The SIM is not PUK locked.")
    if not re.fullmatch(r"\d{4}", new_pin.strip()):
        raise ToolError("The new PIN must be 4 digits.")
    line = world.tables["lines"].get(d.line_id)
    if line is None or puk.strip() != line.puk:
        raise ToolError("Wrong PUK code.")
    world.put_device(replace(d, sim_status="ready", pin=new_pin.strip()))
    return {"sim_status": "ready"}


@tool(kind=ToolKind.WRITE, actor=Actor.USER)
def install_carrier_settings(world: TelecomWorld) -> dict[str, Any]:
    """Open the carrier's configuration message on your phone and install the network
    settings it carries (only once the carrier has sent them)."""
    d = world.device()
    line = world.tables["lines"].get(d.line_id)
    if line is None or not line.settings_pushes:
        raise ToolError("No configuration message from the carrier has arrived.")
    world.put_device(replace(d, apn=APN))
    return {"apn": APN}


@tool(kind=ToolKind.WRITE, actor=Actor.USER)
def add_esim(world: TelecomWorld, activation_code: str) -> dict[str, Any]:
    """Add an eSIM profile on your phone with the activation code the carrier gave you; it
    replaces the SIM in the phone.

    Args:
        activation_code: The code, e.g. "LPA-1A2B3C4D".
    """
    d = world.device()
    line = world.tables["lines"].get(d.line_id)
    if line is None or not line.esim or activation_code.strip() != esim_code(line.id, line.iccid):
        raise ToolError("That activation code is not valid.")
    world.put_device(replace(d, sim_status="ready", iccid=line.iccid))
    return {"esim": "added", "sim_status": "ready"}


@tool(kind=ToolKind.WRITE, actor=Actor.USER)
def allow_app_mobile_data(world: TelecomWorld, app: str) -> dict[str, Any]:
    """Allow an app on your phone to use mobile data.

    Args:
        app: The app's name, e.g. "Maps".
    """
    d = world.device()
    known = dict(d.app_data)
    if app not in known:
        raise ToolError(f"There is no app called {app!r} on this phone.")
    known[app] = True
    world.put_device(replace(d, app_data=tuple(known.items())))
    return {"app": app, "mobile_data": "allowed"}


AGENT_TOOLS = [
    find_customer_by_email,
    find_customer_by_phone,
    get_lines,
    list_bills,
    pay_bill,
    resume_line,
    add_data_topup,
    change_plan,
    enable_roaming,
    send_puk_code,
    push_network_settings,
    issue_esim,
    transfer_to_human,
]
USER_TOOLS = [
    check_status_bar,
    check_network_settings,
    check_sim,
    check_app_permissions,
    set_airplane_mode,
    set_mobile_data,
    set_data_roaming,
    restart_device,
    unlock_sim,
    install_carrier_settings,
    add_esim,
    allow_app_mobile_data,
]
TOOLS = ToolSet([*AGENT_TOOLS, *USER_TOOLS])


# -- user-side assertions (Task.assertions) ---------------------------------------------------


def assert_service(world: Any) -> bool:
    return signal(world) == "4 bars"


def assert_mobile_data(world: Any) -> bool:
    return data_works(world)


def assert_app_data(world: Any, app: str) -> bool:
    return data_works(world) and app_data_allowed(world, app)


ASSERTIONS: dict[str, Callable[..., bool]] = {
    "phone_has_service": assert_service,
    "phone_mobile_data_works": assert_mobile_data,
    "app_can_use_mobile_data": assert_app_data,
}
