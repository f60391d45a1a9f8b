"""What membership's `sandbox/reference` agent does for each kind of request once it holds the
membership (`_<intent>`, dispatched by `handle`): read the invoices and entitlements the request
needs, quote, apply the policy's limits, propose the exact action or refuse it with the
policy's reason, or hand it to a human."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from evals.domains.membership.scripted import vocab
from evals.engine.messages import Message
from evals.engine.sandbox.desk import DeskAgent, Request

MAX_FREEZES = 2
MAX_WAIVERS = 1


@dataclass
class Req(Request):
    plan: str = ""
    months: int = 0
    period: str = ""


class MembershipRequests(DeskAgent[Req]):
    """The request handlers and what they read: the verified member, the membership, its
    invoices and entitlements, and the quotes asked for (the agent's reading of tool results
    fills them)."""

    def __init__(self, *, domain: Any, params: Any, seed: int) -> None:
        super().__init__(domain=domain, params=params, seed=seed)
        self.member_id = ""
        self.ms: dict[str, Any] | None = None
        self.invoices: list[dict[str, Any]] | None = None
        self.entitlements: list[dict[str, Any]] | None = None
        self.quotes: dict[str, dict[str, Any]] = {}

    def _status(self, ms: dict[str, Any]) -> str:
        return self.t(f"status_{ms['status']}")

    def _quote(self, name: str, **args: Any) -> Message | dict[str, Any]:
        key = f"{name}:{args.get('new_plan_id', '')}{args.get('months', '')}"
        if key not in self.quotes:
            return self.call(name, **args)
        return self.quotes[key]

    def handle(self, r: Req) -> Message:
        assert self.ms is not None
        if r.intent in ("waive", "refund", "dispute") and self.invoices is None:
            return self.call("list_invoices", member_id=self.member_id)
        if r.intent in ("refund", "balance") and self.entitlements is None:
            return self.call("list_entitlements", member_id=self.member_id)
        return super().handle(r)

    def _plan_change(self, r: Req) -> Message:
        ms = self.ms
        assert ms is not None
        if not r.plan:
            return self._ask(r, "plan", self.t("ask_plan"))
        current = ms["plan"]["plan_id"]
        if r.plan == current:
            return self.close(r, "already_on_plan", plan=ms["plan"]["name"])
        if ms["status"] != "active":
            return self._refuse(
                r,
                "refuse_plan_inactive",
                membership_id=ms["membership_id"],
                status=self._status(ms),
            )
        quote = self._quote(
            "quote_plan_change", membership_id=ms["membership_id"], new_plan_id=r.plan
        )
        if isinstance(quote, Message):
            return quote
        cur = quote["currency"]
        if quote["direction"] == "downgrade" and ms["commitment_months_left"] > 0:
            return self._refuse(
                r, "refuse_downgrade", membership_id=ms["membership_id"], end=ms["commitment_end"]
            )
        money = (
            self.t("money_charge", amount=quote["prorated_charge_now"], currency=cur)
            if quote["direction"] == "upgrade"
            else self.t("money_credit", amount=quote["prorated_credit"], currency=cur)
        )
        return self.propose(
            "change_plan",
            {"membership_id": ms["membership_id"], "new_plan_id": r.plan},
            self.t(
                "propose_plan",
                membership_id=ms["membership_id"],
                current=ms["plan"]["name"],
                new=r.plan.capitalize(),
                plan_id=r.plan,
                money=money,
                fee=quote["new_monthly_fee"],
                currency=cur,
            ),
        )

    def _freeze(self, r: Req) -> Message:
        ms = self.ms
        assert ms is not None
        if ms["status"] != "active":
            return self._refuse(
                r,
                "refuse_freeze_inactive",
                membership_id=ms["membership_id"],
                status=self._status(ms),
            )
        if ms["freezes_used_this_year"] >= MAX_FREEZES:
            return self._refuse(r, "refuse_freeze_limit", membership_id=ms["membership_id"])
        if not r.months:
            return self._ask(r, "months", self.t("ask_months"))
        if r.months > 3:
            r.months = 0
            return self._ask(r, "months", f"{self.t('freeze_max')} {self.t('ask_months')}")
        quote = self._quote("quote_freeze", membership_id=ms["membership_id"], months=r.months)
        if isinstance(quote, Message):
            return quote
        return self.propose(
            "freeze_membership",
            {"membership_id": ms["membership_id"], "months": r.months},
            self.t(
                "propose_freeze",
                membership_id=ms["membership_id"],
                months=r.months,
                plural="s" if r.months != 1 else "",
                fee=quote["freeze_fee"],
                currency=quote["currency"],
            ),
        )

    def _unfreeze(self, r: Req) -> Message:
        ms = self.ms
        assert ms is not None
        if ms["status"] != "frozen":
            return self.close(
                r, "not_frozen", membership_id=ms["membership_id"], status=self._status(ms)
            )
        return self.propose(
            "unfreeze_membership",
            {"membership_id": ms["membership_id"]},
            self.t("propose_unfreeze", membership_id=ms["membership_id"]),
        )

    def _cancel(self, r: Req) -> Message:
        ms = self.ms
        assert ms is not None
        if ms["status"] == "cancelled":
            return self.close(r, "already_cancelled", membership_id=ms["membership_id"])
        quote = self._quote("quote_cancellation", membership_id=ms["membership_id"])
        if isinstance(quote, Message):
            return quote
        fee, cur = quote["cancellation_fee"], quote["currency"]
        if quote["in_commitment"] and vocab.NO_FEE.search(r.text):
            return self._refuse(
                r, "refuse_cancel_fee", end=quote["commitment_end"], fee=fee, currency=cur
            )
        why = (
            self.t("cancel_in_commitment", end=quote["commitment_end"], fee=fee, currency=cur)
            if quote["in_commitment"]
            else self.t("cancel_after_commitment", fee=fee, currency=cur)
        )
        return self.propose(
            "cancel_membership",
            {"membership_id": ms["membership_id"], "fee": fee},
            self.t("propose_cancel", membership_id=ms["membership_id"], why=why),
        )

    def _late_fee(self) -> tuple[dict[str, Any], dict[str, Any]] | None:
        assert self.invoices is not None
        for inv in self.invoices:
            for line in inv["lines"]:
                if line["kind"] == "late_fee" and not line["waived"] and inv["status"] != "paid":
                    return inv, line
        return None

    def _waive(self, r: Req) -> Message:
        ms = self.ms
        assert ms is not None
        found = self._late_fee()
        if found is None:
            return self.close(r, "no_late_fee")
        inv, line = found
        if ms["late_fee_waivers_last_12_months"] >= MAX_WAIVERS:
            return self._refuse(r, "refuse_waiver", invoice_id=inv["invoice_id"])
        return self.propose(
            "waive_fee",
            {
                "invoice_id": inv["invoice_id"],
                "item_id": line["item_id"],
                "reason": "first late fee in 12 months",
            },
            self.t(
                "propose_waive",
                amount=line["amount"],
                currency=inv["currency"],
                item_id=line["item_id"],
                invoice_id=inv["invoice_id"],
            ),
        )

    def _refund(self, r: Req) -> Message:
        assert self.invoices is not None and self.entitlements is not None
        what = (
            "duplicate"
            if vocab.DUPLICATE.search(r.text)
            else "class"
            if vocab.CLASS.search(r.text)
            else "dues"
        )
        if what == "dues" and not r.period:
            return self._ask(r, "charge", self.t("ask_charge"))
        target = None
        for inv in self.invoices:
            for line in inv["lines"]:
                if (
                    (what == "duplicate" and line["duplicate_of"])
                    or (what == "class" and line["kind"] == "class_drop_in")
                    or (what == "dues" and line["kind"] == "dues" and inv["period"] == r.period)
                ):
                    target = target or (inv, line)
        if target is None:
            return self._ask(r, "charge", f"{self.t('charge_not_found')} {self.t('ask_charge')}")
        inv, line = target
        amount = Decimal(line["amount"])
        if what == "class":
            paid_pack = any(
                e["kind"] == "classes" and e["remaining"] > 0 for e in self.entitlements
            )
            over = amount if paid_pack else Decimal(0)
        elif what == "duplicate":
            over = amount
        else:
            over = max(Decimal(0), amount - Decimal(line["list_price"]))
        over -= sum(
            (
                Decimal(x["amount"])
                for x in inv["refund_requests"]
                if x["item_id"] == line["item_id"]
            ),
            Decimal(0),
        )
        if over <= 0 and what == "class":
            return self._refuse(r, "refuse_class", invoice_id=inv["invoice_id"])
        if over <= 0:
            return self._refuse(
                r, "refuse_no_overcharge", item_id=line["item_id"], invoice_id=inv["invoice_id"]
            )
        text = line["amount"] if over == amount else str(over)
        cur = inv["currency"]
        return self.propose(
            "request_refund",
            {
                "invoice_id": inv["invoice_id"],
                "item_id": line["item_id"],
                "amount": text,
                "currency": cur,
                "reason": f"overcharge ({what})",
            },
            self.t(
                "propose_refund",
                amount=text,
                currency=cur,
                item_id=line["item_id"],
                description=line["description"],
                invoice_id=inv["invoice_id"],
            ),
        )

    def _balance(self, r: Req) -> Message:
        assert self.entitlements is not None
        kinds = [("guest_pass", vocab.GUEST), ("pt_session", vocab.PT), ("classes", vocab.CLASS)]
        kind = next((k for k, pattern in kinds if pattern.search(r.text)), None)
        if kind is None:
            return self._ask(r, "kind", self.t("ask_balance"))
        left = sum(e["remaining"] for e in self.entitlements if e["kind"] == kind)
        r.done = True
        self.notes.append(self.t("balance", left=left, label=self.t(f"label_{kind}")))
        return self.plan()

    def _dispute(self, r: Req) -> Message:
        ms = self.ms
        assert ms is not None
        reference = ms["membership_id"]
        if vocab.LATE_FEE.search(r.text):
            found = self._late_fee()
            if found is not None:
                reference = found[0]["invoice_id"]
        r.done = True
        step = self.call(
            "transfer_to_human",
            category="dispute",
            summary=f"Member {self.member_id} disputes a charge: {r.text.strip()[:160]}",
            member_id=self.member_id,
            reference=reference,
        )
        return Message.assistant(
            self.t("dispute"),
            step.tool_calls,
        )
