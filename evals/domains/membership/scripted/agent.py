"""`sandbox/reference` for membership: a rule-based agent that follows policy.md.

It learns everything from the conversation: the member's text (parsed with the shared
vocabulary) and the results of its own tool calls. It verifies identity, looks up, quotes fees,
applies the rules it was told (entitlements come from list_entitlements only, never from
check-ins), summarises the exact action, asks for a yes, writes, notifies and records, reports,
refuses what the policy forbids and hands disputes to a human. It handles one request at a time
and asks for each missing fact in its own question — its slowness with hurried members is real.
What it does for each kind of request is its base class, `requests.MembershipRequests`.

Every sentence it says comes from one wording of `phrasings.PHRASINGS`, chosen by the param
`phrasing` ("en", the default, or a rewording such as "en-2", "en-3", "zh").
"""

from __future__ import annotations

import json
from typing import Any

from evals.domains.membership.scripted import vocab
from evals.domains.membership.scripted.phrasings import PHRASINGS
from evals.domains.membership.scripted.requests import MembershipRequests, Req
from evals.engine.messages import Message
from evals.engine.sandbox.desk import tool_data

TOPICS = {
    "change_plan": "plan_change",
    "freeze_membership": "freeze",
    "unfreeze_membership": "unfreeze",
    "cancel_membership": "cancellation",
    "waive_fee": "fee_waiver",
    "request_refund": "refund",
}


class MembershipReferenceAgent(MembershipRequests):
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
        self.followup: list[tuple[str, dict[str, Any]]] = []
        self.report = ""

    def new_request(self, intent: str) -> Req:
        return Req(intent)

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
