"""What the telecom tools share: the record views the agent's tools return."""

from __future__ import annotations

import re
from typing import Any, Literal

from evals.domains.telecom.world import (
    PLANS,
    TOPUP_PRICE,
    Bill,
    Line,
    TelecomWorld,
    money_text,
)

PlanId = Literal["basic", "plus", "unlimited"]
HandoffCategory = Literal["dispute", "fraud", "other"]
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


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
