"""The single requests a telecom task is composed of, and which ones compound.

Each recipe returns a `Part` for a customer of the world: the request (what the customer
says it wants or what it notices on its phone — never the cause), the agent's gold writes,
the customer's own writes on its phone that a right outcome includes (`user_gold`), the
user-side assertions that judge its phone, what the agent must say and what it must have
looked up. SINGLES and COMPOUNDS name the world profile the customer is taken from.
"""

from __future__ import annotations

from collections.abc import Callable

from evals.domains.telecom.world import (
    PLANS,
    TOPUP_PRICE,
    Bill,
    Customer,
    Line,
    TelecomWorld,
    esim_code,
    money_text,
    new_iccid,
)
from evals.engine.composition import TRANSFER_WORDS, Part, refusal
from evals.engine.task import Assertion, GoldCall

# The policy's reasons for a refusal, in the words of policy.md and policy.zh.md.
REASON_PAY_FIRST = ("paid in full", "全额支付")
REASON_BASIC = ("Basic plan", "基础套餐")
REASON_SIM_30 = ("30 days", "30 天")
MONTHS = {"04": "April", "05": "May", "06": "June"}
NEW_PINS = ("2580", "1357", "8642")


class Ctx:
    """One customer's situation, as a recipe sees it."""

    def __init__(self, world: TelecomWorld, customer: Customer, n: int) -> None:
        self.world = world
        self.customer = customer
        self.n = n
        self.line: Line = world.lines_of(customer.id)[0]
        self.cur = customer.currency

    def money(self, minor: int) -> str:
        return money_text(minor, self.cur)

    def bill(self, period: str) -> Bill:
        return next(b for b in self.world.bills_of(self.customer.id) if b.period == period)

    def lines_read(self) -> tuple[GoldCall, ...]:
        return (GoldCall("get_lines", {"customer_id": self.customer.id}),)

    def bills_read(self) -> tuple[GoldCall, ...]:
        return (GoldCall("list_bills", {"customer_id": self.customer.id}),)


def _service() -> Assertion:
    return Assertion("phone_has_service", {}, side="user")


def _data() -> Assertion:
    return Assertion("phone_mobile_data_works", {}, side="user")


# -- a suspended line -------------------------------------------------------------------------


def _pay(c: Ctx, bill: Bill) -> GoldCall:
    return GoldCall(
        "pay_bill",
        {"bill_id": bill.id, "amount": c.money(bill.amount), "currency": c.cur},
    )


def restore_service(c: Ctx) -> Part:
    bill = c.bill("2025-05")
    gold = [_pay(c, bill), GoldCall("resume_line", {"line_id": c.line.id})]
    return Part(
        {"intent": "no_service", "pay_ok": True},
        gold,
        [(c.money(bill.amount),)],
        user_gold=[GoldCall("restart_device", {})],
        assertions=[_service()],
    )


def restore_service_airplane(c: Ctx) -> Part:
    part = restore_service(c)
    return part._replace(
        user_gold=[GoldCall("set_airplane_mode", {"on": False}), GoldCall("restart_device", {})]
    )


def refuse_resume_unpaid(c: Ctx) -> Part:
    return refusal(
        {"intent": "no_service", "pay_ok": False},
        REASON_PAY_FIRST,
        c.bills_read(),
    )


def dispute_bill(c: Ctx) -> Part:
    bill = c.bill("2025-05")
    gold = [
        GoldCall(
            "transfer_to_human",
            {
                "category": "dispute",
                "summary": "",
                "customer_id": c.customer.id,
                "reference": bill.id,
            },
        )
    ]
    return Part(
        {"intent": "dispute", "period": "May", "amount": c.money(bill.amount), "currency": c.cur},
        gold,
        [TRANSFER_WORDS],
    )


def fraud_review(c: Ctx) -> Part:
    gold = [
        GoldCall(
            "transfer_to_human",
            {
                "category": "fraud",
                "summary": "",
                "customer_id": c.customer.id,
                "reference": c.line.id,
            },
        )
    ]
    return Part({"intent": "no_service", "pay_ok": True}, gold, [TRANSFER_WORDS])


# -- data -------------------------------------------------------------------------------------


def _topup(c: Ctx, gb: int) -> Part:
    gold = [GoldCall("add_data_topup", {"line_id": c.line.id, "gigabytes": gb})]
    return Part(
        {"intent": "no_data", "gb": gb},
        gold,
        [(c.money(TOPUP_PRICE[gb][c.cur]),)],
        user_gold=[GoldCall("set_mobile_data", {"on": True})],
        assertions=[_data()],
    )


def topup_one(c: Ctx) -> Part:
    return _topup(c, 1)


def topup_five(c: Ctx) -> Part:
    return _topup(c, 5)


def apn_settings(c: Ctx) -> Part:
    return Part(
        {"intent": "no_data", "gb": 1},
        [GoldCall("push_network_settings", {"line_id": c.line.id})],
        [],
        user_gold=[GoldCall("install_carrier_settings", {})],
        assertions=[_data()],
    )


def upgrade_unlimited(c: Ctx) -> Part:
    plan = PLANS["unlimited"]
    return Part(
        {"intent": "plan_change", "plan": "unlimited", "plan_name": plan.name},
        [GoldCall("change_plan", {"line_id": c.line.id, "new_plan_id": "unlimited"})],
        [(c.money(plan.price(c.cur)),)],
    )


def upgrade_plus(c: Ctx) -> Part:
    plan = PLANS["plus"]
    return Part(
        {"intent": "plan_change", "plan": "plus", "plan_name": plan.name},
        [GoldCall("change_plan", {"line_id": c.line.id, "new_plan_id": "plus"})],
        [(c.money(plan.price(c.cur)),)],
    )


def pay_june(c: Ctx) -> Part:
    bill = c.bill("2025-06")
    return Part(
        {
            "intent": "bill_payment",
            "period": "June",
            "amount": c.money(bill.amount),
            "currency": c.cur,
        },
        [_pay(c, bill)],
        [(c.money(bill.amount),)],
    )


# -- roaming ----------------------------------------------------------------------------------

COUNTRIES = ("France", "Japan", "Spain")


def roaming(c: Ctx) -> Part:
    return Part(
        {"intent": "no_data_abroad", "country": COUNTRIES[c.n % 3]},
        [GoldCall("enable_roaming", {"line_id": c.line.id})],
        [],
        user_gold=[GoldCall("set_data_roaming", {"on": True})],
        assertions=[_data()],
    )


def refuse_roaming_basic(c: Ctx) -> Part:
    return refusal(
        {"intent": "no_data_abroad", "country": COUNTRIES[c.n % 3]},
        REASON_BASIC,
        c.lines_read(),
    )


def app_offline(c: Ctx) -> Part:
    return Part(
        {"intent": "app_offline", "app": "Maps"},
        [],
        [],
        user_gold=[GoldCall("allow_app_mobile_data", {"app": "Maps"})],
        assertions=[Assertion("app_can_use_mobile_data", {"app": "Maps"}, side="user")],
    )


# -- the SIM ----------------------------------------------------------------------------------


def puk_unlock(c: Ctx) -> Part:
    pin = NEW_PINS[c.n % 3]
    return Part(
        {"intent": "sim_locked", "new_pin": pin},
        [GoldCall("send_puk_code", {"line_id": c.line.id})],
        [(c.line.puk,)],
        user_gold=[GoldCall("unlock_sim", {"puk": c.line.puk, "new_pin": pin})],
        assertions=[_service()],
    )


def esim_replacement(c: Ctx) -> Part:
    code = esim_code(c.line.id, new_iccid(c.line))
    return Part(
        {"intent": "sim_broken"},
        [GoldCall("issue_esim", {"line_id": c.line.id})],
        [(code,)],
        user_gold=[GoldCall("add_esim", {"activation_code": code})],
        assertions=[_service()],
    )


def refuse_esim_recent(c: Ctx) -> Part:
    return refusal(
        {"intent": "sim_broken"},
        REASON_SIM_30,
        c.lines_read(),
    )


Recipe = Callable[[Ctx], Part]
SINGLES: dict[str, tuple[str, tuple[Recipe, ...]]] = {
    "restore-service-unpaid": ("unpaid", (restore_service,)),
    "restore-service-airplane": ("unpaid-airplane", (restore_service_airplane,)),
    "refuse-resume-without-payment": ("unpaid", (refuse_resume_unpaid,)),
    "dispute-bill": ("unpaid", (dispute_bill,)),
    "fraud-review": ("fraud", (fraud_review,)),
    "topup-1gb": ("data-out", (topup_one,)),
    "topup-5gb": ("data-out", (topup_five,)),
    "apn-settings": ("apn", (apn_settings,)),
    "upgrade-unlimited": ("heavy", (upgrade_unlimited,)),
    "pay-open-bill": ("heavy", (pay_june,)),
    "roaming-abroad": ("abroad", (roaming,)),
    "refuse-roaming-basic": ("abroad-basic", (refuse_roaming_basic,)),
    "puk-unlock": ("puk", (puk_unlock,)),
    "esim-replacement": ("lost-sim", (esim_replacement,)),
    "refuse-esim-recent": ("recent-sim", (refuse_esim_recent,)),
}
# name -> (profile, parts, ordered): the parts in the order the customer asks them.
COMPOUNDS: dict[str, tuple[str, tuple[Recipe, ...], bool]] = {
    "roaming+app": ("abroad-app", (roaming, app_offline), False),
    "upgrade+pay": ("heavy", (upgrade_unlimited, pay_june), False),
    "puk+roaming": ("abroad-puk", (puk_unlock, roaming), False),
    "upgrade-then-roaming": ("abroad-basic", (upgrade_plus, roaming), True),
    "refuse-resume+dispute": ("unpaid", (refuse_resume_unpaid, dispute_bill), False),
    "esim+pay": ("lost-sim", (esim_replacement, pay_june), False),
}
MONTH_NAMES = MONTHS
