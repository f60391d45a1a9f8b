"""`sandbox/scripted` for telecom: a customer holding its own phone.

It knows its identity, what it notices (no service, no data abroad, a PUK prompt...) and what
it wants — never the cause. It states everything it came for at once, gives the identity asked
(a wrong date of birth first when its scenario says so, corrected once the agent repeats it),
says yes to a proposal that matches what it wants (no to a payment it will not make today, or
to another top-up size than its own), and accepts a refusal with a reason and a transfer.

On its phone it acts only as told: it checks what the agent asks it to check (the status bar,
the network settings, the SIM screen, an app's permission) and reports what it sees, and makes
a change only once the agent asks for it (turn airplane mode off, mobile data or data roaming
on, install the carrier settings, unlock the SIM with the PUK code it was given, add the eSIM
with the activation code it was given, allow an app mobile data, restart). A confused customer
may do only the first of several steps; the agent then has to find the missing one and ask
again. A problem on its phone is settled when the phone shows it fixed, as the customer sees
it. In a solo run (`params["solo"]`: the agent holds the phone's tools) it has no tools and
takes the agent's word that the phone works again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from evals.domains.telecom.scripted import vocab
from evals.domains.telecom.scripted.customer_phrases import PERIODS_ZH, PHRASES
from evals.engine.messages import Message, Role, Signal, ToolCall
from evals.engine.persona import Language, Level, Persona
from evals.engine.sandbox.request_user import RequestListUser, dob_slip
from evals.engine.understanding.utterances import ActKind

PROCEED = re.compile(r"shall i proceed|go ahead\?|是否继续|\(yes/no\)|（是/否）", re.IGNORECASE)
ASK_IDENTITY = re.compile(
    r"verify your identity|confirm it's you|验证您的身份|电子邮箱|phone number (?:and|together with)",
    re.IGNORECASE,
)
CLOSING = re.compile(
    r"anything else|something else|how can i help|what can i do for you|还有其他|有什么可以帮",
    re.IGNORECASE,
)
TELL_ME = re.compile(r"what is wrong|遇到了什么问题", re.IGNORECASE)
WHY = re.compile(r"\bwhy\b|为什么", re.IGNORECASE)


class TelecomScriptedUser(RequestListUser):
    reader = vocab.READER
    PHRASES = PHRASES

    def __init__(self, *, scenario: Any, persona: Persona, seed: int, solo: bool = False) -> None:
        super().__init__(scenario=scenario, persona=persona, seed=seed)
        self.solo = solo
        self.queue: list[tuple[str, dict[str, Any]]] = []
        self.reporting = False
        self.did = ""
        self.calls = 0
        self.skipped: set[str] = set()
        self.refused = False
        self.seen: dict[str, str] = {}

    @classmethod
    def factory(
        cls, *, domain: Any, scenario: Any, persona: Any, params: Mapping[str, Any], seed: int
    ) -> TelecomScriptedUser:
        return cls(scenario=scenario, persona=persona, seed=seed, solo=bool(params.get("solo")))

    # -- acting on its own phone ------------------------------------------------------------

    def _tool(self) -> Message:
        name, args = self.queue.pop(0)
        self.calls += 1
        call = ToolCall(f"user_call_{self.calls}", name, json.dumps(args))
        return Message(Role.USER, tool_calls=(call,))

    def respond(self, messages: Sequence[Message]) -> Message:
        if self.queue:
            return self._tool()
        if self.reporting:
            self.reporting = False
            return Message.user(self._report(messages))
        message = super().respond(messages)
        if self.queue:  # reply() chose to act on its phone first
            return self._tool()
        return message

    def _report(self, messages: Sequence[Message]) -> str:
        """What the customer's own calls since the agent last spoke returned, in its words."""
        results: list[Message] = []
        for m in reversed(messages):
            if m.role is Role.ASSISTANT:
                break
            if m.role is Role.TOOL:
                results.append(m)
        # What the phone shows is reported as it shows it (no typo in a copied screen); the
        # customer's own words around it carry its persona.
        parts = [self.style(self.did)] if self.did else []
        before = set(self._open())
        for m in reversed(results):
            parts.append(self._reported(m))
        self._settle_from_phone()
        fixed = [i for i in before if i not in self._open()]
        if fixed and not [
            i for i in self._open() if self.requests[i]["intent"] in vocab.DEVICE_INTENTS
        ]:
            parts.append(self.style(self.say("works_now")))
        return self.join(*[p for p in parts if p])

    def _reported(self, m: Message) -> str:
        if m.error:
            return self.say("failed", error=m.content.removeprefix("Error: "))
        data = json.loads(m.content)
        if m.name == "check_status_bar":
            self.seen["signal"], self.seen["data"] = data["signal"], data["mobile_data"]
            return self.say(
                "status",
                signal=self.say(f"signal:{data['signal']}"),
                data=self.say(f"data:{data['mobile_data']}"),
            )
        if m.name == "check_network_settings":
            return self.say(
                "settings",
                airplane=self.say(f"onoff:{data['airplane_mode']}"),
                mobile=self.say(f"onoff:{data['mobile_data']}"),
                roaming=self.say(f"onoff:{data['data_roaming']}"),
                apn=data["apn"],
            )
        if m.name == "check_sim":
            return self.say("sim", sim=self.say(f"sim:{data['sim_status']}"))
        if m.name == "check_app_permissions":
            self.seen[f"app:{data['app']}"] = data["mobile_data"]
            return self.say(
                "app", app=data["app"], allowed=self.say(f"allowed:{data['mobile_data']}")
            )
        if m.name == "allow_app_mobile_data":
            self.seen[f"app:{data['app']}"] = "allowed"
        return ""

    def _settle_from_phone(self) -> None:
        """Settle the problems the phone now shows fixed, as the customer sees them."""
        for i in self._open():
            r = self.requests[i]
            intent = r["intent"]
            if intent in ("no_service", "sim_locked", "sim_broken"):
                fixed = self.seen.get("signal") == "4 bars"
            elif intent in ("no_data", "no_data_abroad"):
                fixed = self.seen.get("data") == "working"
            elif intent == "app_offline":
                fixed = (
                    self.seen.get("data") == "working"
                    and self.seen.get(f"app:{r['app']}") == "allowed"
                )
            else:
                continue
            if fixed:
                self.done.add(i)

    def _phone_steps(self, text: str) -> list[tuple[int, str, dict[str, Any]]]:
        steps: list[tuple[int, str, dict[str, Any]]] = []
        if not vocab.DO_ON_PHONE.search(text):
            return steps
        for name, pattern in vocab.STEPS:
            m = pattern.search(text)
            if m is None:
                continue
            value = next((g for g in m.groups() if g), "")
            args: dict[str, Any] = {}
            if name in ("set_airplane_mode",):
                args = {"on": False}
            elif name in ("set_mobile_data", "set_data_roaming"):
                args = {"on": True}
            elif name == "unlock_sim":
                pin = next((r["new_pin"] for r in self.requests if r.get("new_pin")), "1111")
                args = {"puk": value, "new_pin": pin}
            elif name == "add_esim":
                args = {"activation_code": value}
            elif name == "allow_app_mobile_data":
                args = {"app": value}
            steps.append((m.start(), name, args))
        return sorted(steps, key=lambda s: s[0])

    def _phone_checks(self, text: str) -> list[tuple[str, dict[str, Any]]]:
        checks: list[tuple[str, dict[str, Any]]] = [
            (name, {}) for name, pattern in vocab.CHECKS.items() if pattern.search(text)
        ]
        for m in vocab.APP_CHECK.finditer(text):
            checks.append(("check_app_permissions", {"app": next(g for g in m.groups() if g)}))
        return checks

    def _act_on_phone(self, text: str) -> bool:
        steps = self._phone_steps(text)
        checks = self._phone_checks(text)
        if not steps and not checks:
            return False
        self.did = ""
        if steps:
            key = ",".join(s[1] for s in steps)
            if len(steps) >= 2 and key not in self.skipped and self.confused():
                # A confused customer does the first step only; asked again, it does them all.
                self.skipped.add(key)
                steps = steps[:1]
                self.did = self.say("did_some")
            else:
                self.did = self.say("did")
        self.queue = [(name, args) for _, name, args in steps] + checks
        self.reporting = True
        return True

    # -- what the customer says ---------------------------------------------------------------

    def _money(self, r: Mapping[str, Any]) -> str:
        return f"{r['amount']} {r['currency']}"

    def _period(self, r: Mapping[str, Any]) -> str:
        return PERIODS_ZH[r["period"]] if self.language is Language.ZH_HANS else r["period"]

    def _state(self, i: int) -> str:
        self.stated.add(i)
        r = self.requests[i]
        intent = r["intent"]
        if intent == "no_data_abroad":
            return self.say(intent, country=r["country"])
        if intent == "app_offline":
            return self.say(intent, app=r["app"])
        if intent == "plan_change":
            return self.say(intent, plan=r["plan_name"])
        if intent in ("bill_payment", "dispute"):
            return self.say(intent, period=self._period(r), money=self._money(r))
        return self.say(intent)

    def opening(self) -> str:
        if self.persona.incoherence is Level.HIGH and self.chance(0.7):
            return self.say("vague_opening")
        parts = [self._state(i) for i in range(len(self.requests))]
        text = self.join(*parts)
        if self.persona.skepticism is Level.LOW and self.chance(0.3):
            text = self.join(self._identity(), text)
        return text

    def with_focus_blurted(self, text: str) -> str:
        """An incoherent customer blurts out everything it has not said yet before what it
        was asked (a phone problem rarely comes alone)."""
        unsaid = [i for i in self._open() if i not in self.stated]
        if self.persona.incoherence is Level.HIGH and unsaid:
            request = self.join(*[self._state(i) for i in unsaid])
            return self.say("blurt", request=request, text=text)
        return text

    def _identity(self, slots: tuple[str, ...] = ()) -> str:
        ident = self.identity
        if ident["gives"] == "email":
            return self.say("email", email=ident["email"])
        dob = self.as_given(ident["dob"], wrong=ident.get("wrong_dob") or "", slip=dob_slip)
        if self.persona.incoherence is Level.HIGH:
            return self.say("phone_dob_incoherent", dob=dob, phone=ident["phone_number"])
        return self.say("phone_dob", phone=ident["phone_number"], dob=dob)

    # -- answering the agent ------------------------------------------------------------------

    def _find(self, *intents: str) -> int | None:
        return next((i for i in self._open() if self.requests[i]["intent"] in intents), None)

    def _proposal(self, text: str) -> tuple[str, Signal]:
        low = text.lower()
        if re.search(r"\bpay\b|支付", low):
            i = self._find("no_service", "bill_payment")
            if i is not None and self.requests[i]["intent"] == "no_service":
                if not self.requests[i].get("pay_ok"):
                    return self.say("decline_pay"), Signal.NONE
                return self._yes(None)
            if i is not None:
                return self._yes(i)
        elif re.search(r"resum|恢复", low) and self._find("no_service") is not None:
            return self._yes(None)
        elif re.search(r"top.?up|充值", low):
            i = self._find("no_data")
            if i is not None:
                gb = vocab.GB.search(text)
                want = self.requests[i]["gb"]
                if gb and int(gb.group(1)) != want:
                    return self.say("other_topup", gb=want), Signal.NONE
                return self._yes(None)
        elif (re.search(r"roaming|漫游", low) and self._find("no_data_abroad") is not None) or (
            "esim" in low and self._find("sim_broken") is not None
        ):
            return self._yes(None)
        elif re.search(r"\bplan\b|套餐", low):
            i = self._find("plan_change")
            if i is not None:
                plan = vocab.PLAN.findall(text)
                if plan and self.requests[i]["plan"] not in {p.lower() for p in plan}:
                    return self.say("not_that", request=self._state(i)), Signal.NONE
                return self._yes(i)
        if self.asked("wrong"):
            return self.abandon()
        return self.say("what_do_you_need"), Signal.NONE

    def _yes(self, i: int | None) -> tuple[str, Signal]:
        self.confirmed = i
        return self.plain_yes(), Signal.NONE

    def _refused_request(self, text: str) -> int | None:
        low = text.lower()
        for pattern, intents in (
            (r"resum|恢复", ("no_service",)),
            (r"roaming|漫游", ("no_data_abroad",)),
            (r"\bsim\b", ("sim_broken",)),
        ):
            if re.search(pattern, low):
                i = self._find(*intents)
                if i is not None:
                    return i
        return self._open()[0] if self._open() else None

    def reply(self, agent_text: str) -> tuple[str, Signal]:
        low = agent_text.lower()
        correction = self.correct_mistake(lambda wrong: wrong.lower() in low)
        if correction is not None:
            return correction
        if vocab.TRANSFERRED.search(agent_text):
            self.finished = True
            return self.say("transfer_thanks"), Signal.STOP
        reading = self.reader.read(agent_text)
        if self.confirmed is not None and (
            vocab.DONE_CUE.search(agent_text) or reading.has(ActKind.DONE)
        ):
            self.done.add(self.confirmed)
            self.confirmed = None
        if self.solo and vocab.WORKS_AGAIN.search(agent_text):
            self.done.update(
                i for i in self._open() if self.requests[i]["intent"] in vocab.DEVICE_INTENTS
            )
        if ASK_IDENTITY.search(agent_text):
            return self.verify_identity()
        if PROCEED.search(agent_text):
            return self._proposal(agent_text)
        if not self.solo and self._act_on_phone(agent_text):
            return "", Signal.NONE
        refused = reading.has(ActKind.REFUSE) or vocab.REFUSAL_CUE.search(agent_text)
        if refused and not vocab.WORKS_AGAIN.search(agent_text):
            i = self._refused_request(agent_text)
            if i is not None:
                self.refused = True
                self.done.add(i)
        if TELL_ME.search(agent_text):
            if self.asked("tell"):
                return self.abandon()
            return self.join(*[self._state(i) for i in self._open()]), Signal.NONE
        if CLOSING.search(agent_text) or refused:
            remaining = self._open()
            if not remaining:
                self.finished = True
                return self.say("goodbye_anyway" if self.refused else "goodbye"), Signal.STOP
            if refused and not CLOSING.search(agent_text):
                return self._state(remaining[0]), Signal.NONE
            if self.asked(f"closing:{remaining[0]}"):
                return self.abandon()
            return self.say("not_finished", request=self._state(remaining[0])), Signal.NONE
        if vocab.WORKS_AGAIN.search(agent_text) or vocab.DONE_CUE.search(agent_text):
            return self.say("still_broken") if self._open() else self.say("goodbye"), (
                Signal.NONE if self._open() else Signal.STOP
            )
        if self.asked("unclear"):
            return self.abandon()
        return self.say("what_do_you_need"), Signal.NONE
