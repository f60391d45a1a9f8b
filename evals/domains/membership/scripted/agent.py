"""`sandbox/reference` for membership: a rule-based agent that follows policy.md.

It learns everything from the conversation: the member's text (parsed with the shared
vocabulary) and the results of its own tool calls. It verifies identity, looks up, quotes fees,
applies the rules it was told (entitlements come from list_entitlements only, never from
check-ins), summarises the exact action, asks for a yes, writes, notifies and records, reports,
refuses what the policy forbids and hands disputes to a human. It handles one request at a time
and asks for each missing fact in its own question — its slowness with hurried members is real.

Every sentence it says comes from one wording of `phrasings.PHRASINGS`, chosen by the param
`phrasing` ("en", the default, or a rewording such as "en-2", "en-3", "zh").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from evals.domains.membership.scripted import vocab
from evals.domains.membership.scripted.phrasings import PHRASINGS
from evals.engine.messages import Message
from evals.engine.sandbox.desk import DeskAgent, Request, tool_data

MAX_FREEZES = 2
MAX_WAIVERS = 1
TOPICS = {
    "change_plan": "plan_change",
    "freeze_membership": "freeze",
    "unfreeze_membership": "unfreeze",
    "cancel_membership": "cancellation",
    "waive_fee": "fee_waiver",
    "request_refund": "refund",
}


@dataclass
class Req(Request):
    plan: str = ""
    months: int = 0
    period: str = ""


class MembershipReferenceAgent(DeskAgent[Req]):
    DOMAIN = "membership"
    PHRASINGS = PHRASINGS
    # Its Chinese sentences are joined with a space, as its transcripts were measured.
    ZH_GAP = ZH_NOTES_GAP = " "

    def __init__(self, *, domain: Any, params: Any, seed: int) -> None:
        super().__init__(domain=domain, params=params, seed=seed)
        self.email = ""
        self.number = ""
        self.dob = ""
        self.tried: set[str] = set()
        self.member_id = ""
        self.ms: dict[str, Any] | None = None
        self.invoices: list[dict[str, Any]] | None = None
        self.entitlements: list[dict[str, Any]] | None = None
        self.quotes: dict[str, dict[str, Any]] = {}
        self.followup: list[tuple[str, dict[str, Any]]] = []
        self.report = ""

    def new_request(self, intent: str) -> Req:
        return Req(intent)

    def _status(self, ms: dict[str, Any]) -> str:
        return self.t(f"status_{ms['status']}")

    # -- reading the member --------------------------------------------------------------

    def has_new_facts(self, text: str) -> bool:
        return bool(
            vocab.MEMBER_NUMBER.search(text)
            or vocab.DOB.search(text)
            or vocab.EMAIL.search(text)
            or vocab.PLAN.search(text)
            or vocab.months_in(text)
            or vocab.intent_of(text)
        )

    def observe_user(self, text: str) -> None:
        self.heard_why(text)
        clean = vocab.clean(text)
        email = vocab.EMAIL.search(clean)
        if email:
            self.email = email.group(0).rstrip(".").lower()
        number = vocab.MEMBER_NUMBER.search(clean)
        if number:
            self.number = number.group(1)
        dob = vocab.DOB.search(clean)
        if dob:
            self.dob = dob.group(1)
        for sentence in vocab.SENTENCE.split(clean):
            self.take(sentence, vocab.intent_of(sentence))

    def _absorb(self, r: Req, sentence: str) -> None:
        r.text += " " + sentence
        plan = vocab.PLAN.search(sentence)
        if plan:
            r.plan = plan.group(1).lower()
        months = vocab.months_in(sentence)
        if months:
            r.months = months
        period = vocab.period_in(sentence)
        if period:
            r.period = period

    # -- reading tool results ------------------------------------------------------------

    def observe_tool(self, name: str, args: dict[str, Any], content: str, error: bool) -> None:
        data = tool_data(content, error)
        if name.startswith("find_member"):
            if not error:
                self.member_id = data["member_id"]
            else:
                self.failed = (
                    self.t("not_found_email", email=args.get("email"))
                    if name == "find_member_by_email"
                    else self.t(
                        "not_found_number",
                        number=args.get("member_number"),
                        dob=args.get("date_of_birth"),
                    )
                )
        elif name == "get_membership" and not error:
            self.ms = data
        elif name == "list_invoices" and not error:
            self.invoices = data
        elif name == "list_entitlements" and not error:
            self.entitlements = data
        elif name.startswith("quote_") and not error:
            self.quotes[f"{name}:{args.get('new_plan_id', '')}{args.get('months', '')}"] = data
        elif name == "notify_customer":
            pass
        elif name == "add_note":
            self.notes.append(self.report)
        elif name in TOPICS and self.active is not None:
            self.active.done = True
            if error:
                self.notes.append(self.t("write_failed", error=content.removeprefix("Error: ")))
                return
            reference = (
                data.get("invoice_id")
                if name in ("waive_fee", "request_refund")
                else data["membership_id"]
            )
            topic = TOPICS[name]
            base = {"member_id": self.member_id, "topic": topic, "reference": reference}
            self.followup = [
                ("notify_customer", base),
                ("add_note", {**base, "text": self._note(name, data)}),
            ]
            self.report = self.t("done", text=self._done_text(name, data))
            self.ms = self.invoices = None
            self.quotes.clear()

    def _done_text(self, name: str, data: dict[str, Any]) -> str:
        money = ""
        if name == "change_plan":
            money = (
                self.t("done_charged", amount=data["charged"], currency=data["currency"])
                if "charged" in data
                else self.t("done_credited", amount=data["credited"], currency=data["currency"])
            )
        plural = "s" if data.get("months", 1) != 1 else ""
        return self.t(f"done_{name}", money=money, plural=plural, **data)

    def _note(self, name: str, data: dict[str, Any]) -> str:
        return f"Member asked by chat; {name.replace('_', ' ')} done: " + json.dumps(
            data, sort_keys=True
        )

    # -- deciding ------------------------------------------------------------------------

    def plan(self) -> Message:
        if not self.member_id:
            return self._authenticate()
        if self.followup:
            name, args = self.followup.pop(0)
            return self.call(name, **args)
        if self.ms is None:
            return self.call("get_membership", member_id=self.member_id)
        return self.serve([r for r in self.reqs if not r.done])

    def _authenticate(self) -> Message:
        if self.email and f"e:{self.email}" not in self.tried:
            self.tried.add(f"e:{self.email}")
            return self.call("find_member_by_email", email=self.email)
        if self.number and self.dob and f"n:{self.number}/{self.dob}" not in self.tried:
            self.tried.add(f"n:{self.number}/{self.dob}")
            return self.call(
                "find_member_by_number", member_number=self.number, date_of_birth=self.dob
            )
        return self.ask_identity()

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
