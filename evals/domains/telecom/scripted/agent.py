"""`sandbox/reference` for telecom: a rule-based agent that follows policy.md.

It learns everything from the conversation: the customer's words (what it notices, its
identity, its reports of what the phone shows) and the results of its own tool calls. It
verifies identity, reads the line and the bills, fixes the account side first (pays an overdue
bill and resumes the line, tops up used-up data, enables roaming, gives the PUK code, issues an
eSIM, changes a plan, pays a bill — each proposed and confirmed), refuses what the policy
forbids with the policy's reason, and transfers disputes and fraud reviews. Then it guides the
customer through the phone, or in a solo run checks and fixes the phone itself: that phase is
its base class, `phone.PhoneGuide`.

Params: `phrasing` ("en", "en-2", "zh"; default: the customer's language), `diagnosis`
("device_only": a wrong diagnosis that blames the phone and never fixes the account — for the
ablation tests), `policy` ("blind": proposes what the policy forbids, for the policy tests).
"""

from __future__ import annotations

from typing import Any

from evals.domains.telecom.scripted import vocab
from evals.domains.telecom.scripted.phone import PhoneGuide, Req
from evals.domains.telecom.scripted.phrasings import PHRASINGS
from evals.domains.telecom.world import SIM_REPLACEMENT_DAYS
from evals.engine.messages import Message
from evals.engine.sandbox.desk import tool_data

PERIODS = {"2025-04": ("April", "4 月"), "2025-05": ("May", "5 月"), "2025-06": ("June", "6 月")}


class TelecomReferenceAgent(PhoneGuide):
    DOMAIN = "telecom"
    PHRASINGS = PHRASINGS

    def __init__(self, *, domain: Any, params: Any, seed: int) -> None:
        super().__init__(domain=domain, params=params, seed=seed)
        self.diagnosis = str(params.get("diagnosis", ""))
        self.blind = params.get("policy") == "blind"
        self.email = self.phone = self.dob = ""
        self.tried: set[str] = set()
        self.customer_id = ""
        self.bills: list[dict[str, Any]] | None = None

    def new_request(self, intent: str) -> Req:
        return Req(intent)

    # -- reading the customer ---------------------------------------------------------------

    def has_new_facts(self, text: str) -> bool:
        return bool(
            vocab.EMAIL.search(text)
            or vocab.PHONE.search(text)
            or vocab.DOB.search(text)
            or vocab.GB.search(text)
            or vocab.PLAN.search(text)
            or vocab.intent_of(text)
        )

    def declined(self, name: str, args: dict[str, Any]) -> None:
        r = self.active
        if r is None:
            return
        if name == "pay_bill" and r.intent == "no_service":
            r.declined = True
        elif name == "add_data_topup" and vocab.GB.search(self.last_user):
            return  # another size: observe_user reads it
        else:
            r.done = True
            self.notes.append(self.t("declined"))

    def observe_user(self, text: str) -> None:
        self.heard_why(text)
        clean = vocab.clean(text)
        if m := vocab.EMAIL.search(clean):
            self.email = m.group(0).rstrip(".").lower()
        if m := vocab.PHONE.search(clean):
            self.phone = m.group(0)
        if m := vocab.DOB.search(clean):
            self.dob = m.group(1)
        report = vocab.read_report(text)
        if report:
            self.report.update(report)
            self.fresh = True
        for sentence in vocab.SENTENCE.split(clean):
            if not sentence.strip() or vocab.read_report(sentence):
                continue
            self.take(sentence, vocab.intent_of(sentence))

    def _request(self, intent: str, sentence: str) -> Req | None:
        """The request with `intent`, new or open; None when it was settled (one request of a
        kind a conversation), whatever the facts before it."""
        for r in self.reqs:
            if r.intent == intent:
                return None if r.done else r
        r = Req(intent)
        self.reqs.append(r)
        if intent in vocab.DEVICE_INTENTS and not self._device_reqs()[:-1]:
            # A new problem on the phone after the others were settled: a fresh round count.
            self.rounds, self.awaiting, self.report = 0, "", {}
        return r

    def _absorb(self, r: Req, sentence: str) -> None:
        r.text += " " + sentence
        if m := vocab.GB.search(sentence):
            r.gb = int(m.group(1))
        if m := vocab.PLAN.search(sentence):
            r.plan = m.group(1).lower()
        if m := vocab.PERIOD.search(sentence):
            r.period = "2025-" + vocab.MONTH_NUMBERS[(m.group(1) or m.group(2)).lower()]

    # -- reading tool results ---------------------------------------------------------------

    def observe_tool(self, name: str, args: dict[str, Any], content: str, error: bool) -> None:
        data = tool_data(content, error)
        if name.startswith("find_customer"):
            if not error:
                self.customer_id = data["customer_id"]
            elif name == "find_customer_by_email":
                self.failed = self.t("not_found_email", email=args.get("email"))
            else:
                self.failed = self.t(
                    "not_found_phone", phone=args.get("phone_number"), dob=args.get("date_of_birth")
                )
            return
        if name == "get_lines" and not error:
            self.line = data[0] if data else None
            return
        if name == "list_bills" and not error:
            self.bills = data
            return
        if name in self.user_tools:
            self._observe_phone(name, data, error, content)
            return
        if error:
            if self.active is not None:
                self.active.done = True
            self.notes.append(self.t("write_failed", error=content.removeprefix("Error: ")))
            return
        if name == "send_puk_code":
            self.puk = data["puk"]
        elif name == "issue_esim":
            self.esim_code = data["activation_code"]
        elif name == "push_network_settings":
            self.pushed = True
        elif name == "resume_line":
            self.resumed = True
        active = self.active
        if active is not None and name in ("change_plan", "pay_bill"):
            active.done = active.done or active.intent in ("plan_change", "bill_payment")
        if active is not None and name in (
            "add_data_topup",
            "enable_roaming",
            "send_puk_code",
            "issue_esim",
        ):
            active.account_done = True
        if name != "transfer_to_human":
            self.notes.append(self.t(f"done_{name}", **data))
        self.line = None if name != "push_network_settings" else self.line
        if name == "pay_bill":
            self.bills = None

    def _observe_phone(self, name: str, data: Any, error: bool, content: str) -> None:
        """Solo: the phone's own tool results, read as the customer would report them."""
        if error:
            return
        if name == "check_status_bar":
            self.report.update(signal=data["signal"], data=data["mobile_data"])
        elif name == "check_network_settings":
            self.report.update(
                airplane_mode=data["airplane_mode"],
                mobile_data=data["mobile_data"],
                data_roaming=data["data_roaming"],
                apn=data["apn"],
            )
        elif name == "check_sim":
            self.report["sim"] = data["sim_status"]
        elif name == "check_app_permissions":
            self.report[f"app:{data['app']}"] = data["mobile_data"]
        self.fresh = True

    # -- deciding ---------------------------------------------------------------------------

    def plan(self) -> Message:
        if not self.customer_id:
            return self._authenticate()
        if self.line is None:
            return self.call("get_lines", customer_id=self.customer_id)
        if self.bills is None:
            return self.call("list_bills", customer_id=self.customer_id)
        if not self.reqs:
            if self.pool.strip():
                self.pool = ""
            return self.say(self.t("tell_me_more"))
        for r in self.order_requests([r for r in self.reqs if not r.done and not r.account_done]):
            self.active = r
            step = self._account(r)
            if step is not None:
                return step
            r.account_done = True
        self.active = None
        for r in self.reqs:
            if r.account_done and r.intent not in vocab.DEVICE_INTENTS:
                r.done = True
        if any(not r.done and r.intent in vocab.DEVICE_INTENTS for r in self.reqs):
            return self._phone()
        return self.say(self.t("anything_else"))

    def _authenticate(self) -> Message:
        if self.email and f"e:{self.email}" not in self.tried:
            self.tried.add(f"e:{self.email}")
            return self.call("find_customer_by_email", email=self.email)
        if self.phone and self.dob and f"p:{self.phone}/{self.dob}" not in self.tried:
            self.tried.add(f"p:{self.phone}/{self.dob}")
            return self.call(
                "find_customer_by_phone", phone_number=self.phone, date_of_birth=self.dob
            )
        return self.ask_identity()

    def _refuse(self, r: Req, key: str, **values: Any) -> Message:
        r.done = True
        more = any(not x.done for x in self.reqs)
        return self.say(self.join([self.t(key, **values), "" if more else self.t("anything_else")]))

    def _overdue(self) -> list[dict[str, Any]]:
        return [b for b in self.bills or () if b["status"] == "overdue"]

    def _period_words(self, period: str) -> str:
        en, zh = PERIODS.get(period, (period, period))
        return zh if self.zh else en

    def _pay(self, bill: dict[str, Any]) -> Message:
        card = bill.get("card") or self._card()
        return self.propose(
            "pay_bill",
            {"bill_id": bill["bill_id"], "amount": bill["amount"], "currency": bill["currency"]},
            self.t(
                "propose_pay",
                bill_id=bill["bill_id"],
                period=self._period_words(bill["period"]),
                amount=bill["amount"],
                currency=bill["currency"],
                card=card,
            ),
        )

    def _card(self) -> str:
        paid = [b["paid_with"] for b in self.bills or () if b["paid_with"]]
        return paid[0].removeprefix("card ") if paid else "on file"

    def _account(self, r: Req) -> Message | None:
        """The next step of `r` on the account side; None when its account part is done."""
        line = self.line
        assert line is not None
        if r.intent in vocab.DEVICE_INTENTS and self.diagnosis == "device_only":
            return None  # the wrong diagnosis: it is always the phone
        handler = getattr(self, f"_{r.intent}")
        result: Message | None = handler(r, line)
        return result

    def _no_service(self, r: Req, line: dict[str, Any]) -> Message | None:
        if line["status"] != "suspended":
            return None
        if line["suspension_reason"] == "fraud_review" and not self.blind:
            r.done = True
            return self._transfer(
                "fraud", self.t("transfer_fraud", line_id=line["line_id"]), line["line_id"], r
            )
        overdue = self._overdue()
        if overdue and not r.declined:
            return self._pay(overdue[0])
        if overdue and not self.blind:
            b = overdue[0]
            return self._refuse(
                r,
                "refuse_pay_first",
                line_id=line["line_id"],
                bill_id=b["bill_id"],
                amount=b["amount"],
                currency=b["currency"],
            )
        return self.propose(
            "resume_line",
            {"line_id": line["line_id"]},
            self.t("propose_resume", line_id=line["line_id"], phone=line["phone_number"]),
        )

    def _no_data(self, r: Req, line: dict[str, Any]) -> Message | None:
        if not line["data_exhausted"]:
            return None
        gb = r.gb or 1
        return self.propose(
            "add_data_topup",
            {"line_id": line["line_id"], "gigabytes": gb},
            self.t(
                "propose_topup",
                gb=gb,
                line_id=line["line_id"],
                price=line["topups"][f"{gb} GB"],
                currency=line["currency"],
            ),
        )

    def _no_data_abroad(self, r: Req, line: dict[str, Any]) -> Message | None:
        if line["roaming_enabled"]:
            return None
        if not line["plan"]["roaming_available"] and not self.blind:
            change = next((x for x in self.reqs if x.intent == "plan_change" and not x.done), None)
            if change is not None:
                self.active = change
                return self._plan_change(change, line)
            return self._refuse(r, "refuse_basic", line_id=line["line_id"])
        return self.propose(
            "enable_roaming",
            {"line_id": line["line_id"]},
            self.t("propose_roaming", line_id=line["line_id"]),
        )

    def _app_offline(self, r: Req, line: dict[str, Any]) -> Message | None:
        return None

    def _sim_locked(self, r: Req, line: dict[str, Any]) -> Message | None:
        if self.puk:
            return None
        return self.call("send_puk_code", line_id=line["line_id"])

    def _sim_broken(self, r: Req, line: dict[str, Any]) -> Message | None:
        if self.esim_code:
            return None
        days = line["sim"]["last_changed_days_ago"]
        if days < SIM_REPLACEMENT_DAYS and not self.blind:
            return self._refuse(r, "refuse_sim_recent", line_id=line["line_id"], days=days)
        return self.propose(
            "issue_esim",
            {"line_id": line["line_id"]},
            self.t("propose_esim", line_id=line["line_id"]),
        )

    def _plan_change(self, r: Req, line: dict[str, Any]) -> Message | None:
        if not r.plan:
            return self._refuse(r, "tell_me_more")
        if r.plan == line["plan"]["plan_id"]:
            r.done = True
            self.notes.append(self.t("already_plan", plan=line["plan"]["name"]))
            return None
        price = next(p["monthly_price"] for p in line["other_plans"] if p["plan_id"] == r.plan)
        return self.propose(
            "change_plan",
            {"line_id": line["line_id"], "new_plan_id": r.plan},
            self.t(
                "propose_plan",
                line_id=line["line_id"],
                plan=r.plan.capitalize(),
                plan_id=r.plan,
                price=price,
                currency=line["currency"],
            ),
        )

    def _bill_payment(self, r: Req, line: dict[str, Any]) -> Message | None:
        unpaid = [b for b in self.bills or () if b["status"] != "paid"]
        chosen = [b for b in unpaid if not r.period or b["period"] == r.period] or unpaid
        if not chosen:
            r.done = True
            self.notes.append(self.t("nothing_to_pay"))
            return None
        return self._pay(chosen[0])

    def _dispute(self, r: Req, line: dict[str, Any]) -> Message | None:
        bills = self.bills or []
        chosen = (
            [b for b in bills if r.period and b["period"] == r.period]
            or [b for b in bills if b["status"] != "paid"]
            or bills
        )
        r.done = True
        return self._transfer("dispute", self.t("transfer_dispute"), chosen[-1]["bill_id"], r)

    def _transfer(self, category: str, text: str, reference: str, r: Req) -> Message:
        step = self.call(
            "transfer_to_human",
            category=category,
            summary=f"Customer {self.customer_id}: {r.text.strip()[:160]}",
            customer_id=self.customer_id,
            reference=reference,
        )
        return Message.assistant(self.say(text).content, step.tool_calls)
