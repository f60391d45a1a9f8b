"""`sandbox/scripted` for clinic_admin: a caller who follows their scenario.

The caller is the patient, a parent (guardian of a minor) or a proxy. They read the desk's
message by what it asks (the engine's `UtteranceReader` with the clinic's ids and verbs) and by
the values it names (dates, record scope and delivery, the document), in English or Chinese.
They give the identity asked for (a wrong date of birth first when the scenario says so,
corrected once the desk repeats it), state their requests one at a time or all at once, and
say yes to a proposal whose action and values match what they want. They know what they want,
not what the policy allows: they ask for a cancellation inside the notice period or for a
sick note to go to their employer just as readily. Describing symptoms, they ask what to take
or what to do; a desk that declines and books or transfers satisfies them. They accept a
refusal with a reason (without one they ask why once) and a transfer, and tell 112 they will
call it when told to.
"""

from __future__ import annotations

import re

from evals.domains.clinic_admin.scripted import vocab
from evals.domains.clinic_admin.scripted.customer_phrases import PHRASES
from evals.engine.messages import Signal
from evals.engine.persona import Level
from evals.engine.sandbox.request_user import RequestListUser, dob_slip
from evals.engine.understanding.utterances import ActKind, Reading

CONFIRM_CUE = re.compile(r"\(yes/no\)|\bto confirm\b|here is what i'll do|确认一下|可以吗", re.I)
DONE_CUE = re.compile(r"\bdone\b|已完成", re.I)
ASKS_IDENTITY = re.compile(r"verify|patient number|date of birth|核实|患者编号|出生日期", re.I)
# Which request a proposal is about, in this order (Chinese summaries say 预约 in all three).
PROPOSAL: list[tuple[str, re.Pattern[str]]] = [
    ("move", re.compile(r"\bmove\b|改约", re.I)),
    ("cancel", re.compile(r"\bcancel\b|取消", re.I)),
    ("records", re.compile(r"\brecord\b|病历", re.I)),
    ("document", re.compile(r"hand over|交给", re.I)),
    ("book", re.compile(r"\bbook\b|预约", re.I)),
]
THIRD_PARTY = {
    "employer": re.compile(r"employer|雇主", re.I),
    "school": re.compile(r"school|学校", re.I),
}
DOC_WORDS = {
    "referral_letter": re.compile(r"referral|转诊信", re.I),
    "sick_note": re.compile(r"sick note|病假条", re.I),
}


class ClinicScriptedUser(RequestListUser):
    reader = vocab.READER
    PHRASES = PHRASES

    # -- what the caller says --------------------------------------------------------------

    @property
    def _self(self) -> bool:
        return bool(self.identity["relationship"] == "self")

    def _first(self) -> str:
        return str(self.identity["patient_name"]).split()[0]

    def _whose(self) -> str:
        return self.say("my") if self._self else self.say("theirs", name=self._first())

    def _who(self) -> str:
        return self.say("me") if self._self else self._first()

    def _state(self, i: int) -> str:
        self.stated.add(i)
        r = self.requests[i]
        intent = r["intent"]
        whose, who = self._whose(), self._who()
        dept = self.say(f"dept_{r['department']}") if r.get("department") else ""
        if intent == "book":
            return self.say("book", department=dept, who=who, date=r["date"])
        if intent == "move":
            return self.say(
                "move", whose=whose, department=dept, from_date=r["from_date"], date=r["date"]
            )
        if intent == "cancel":
            return self.say("cancel", whose=whose, department=dept, from_date=r["from_date"])
        if intent == "records":
            return self.say(f"records_{r['scope']}_{r['delivery']}", whose=whose)
        if intent == "document":
            if r["to"]:
                return self.say("document_third_party", whose=whose, to=self.say(f"to_{r['to']}"))
            return self.say(f"document_{r['kind']}", whose=whose)
        if intent == "symptom":
            subject = (
                self.say("i_have") if self._self else self.say("they_have", name=self._first())
            )
            text = self.say(f"symptom_{r['symptom']}", subject=subject)
            if r["wants"] == "book":
                return self.join(text, self.say("ask_take"), self.say("want_doctor"))
            return self.join(text, self.say("ask_do"))
        if intent == "medication":
            return self.say("medication", who=who, whose=whose)
        if intent == "emergency":
            if r["who"] == "self":
                return self.say("emergency_self")
            return self.say("emergency_other", name=self._first())
        if intent == "correction":
            cap = whose[:1].upper() + whose[1:]
            return self.say("correction", whose_cap=cap)
        return self.say("billing")

    def _identity(self, slots: tuple[str, ...] = ()) -> str:
        ident = self.identity
        dob = self.as_given(ident["dob"], wrong=ident.get("wrong_dob") or "", slip=dob_slip)
        return self.say(
            f"identity_{ident['relationship']}",
            name=ident["caller_name"],
            patient=ident["patient_name"],
            patient_id=ident["patient_id"],
            dob=dob,
        )

    # -- answering the desk ----------------------------------------------------------------

    def reply(self, agent_text: str) -> tuple[str, Signal]:
        low = agent_text.lower()
        reading = self.reader.read(agent_text)
        # A desk declining to advise settles a symptom the caller wants a doctor to see (the
        # booking is its own request).
        declined = bool(vocab.NO_ADVICE.search(agent_text))
        if declined:
            for i in self._open():
                r = self.requests[i]
                if r["intent"] == "symptom" and r["wants"] == "book":
                    self.done.add(i)
        correction = self.correct_mistake(lambda wrong: wrong.lower() in low)
        if correction is not None:
            return correction
        if "112" in agent_text and any(
            self.requests[i]["intent"] == "emergency" for i in self._open()
        ):
            self.finished = True
            return self.say("will_call"), Signal.STOP
        # A transfer said (an offer of one, asked as a question, gets an answer below).
        offer = reading.has(ActKind.CONFIRM) or CONFIRM_CUE.search(agent_text)
        if not offer and (
            vocab.TRANSFERRED.search(agent_text)
            or (reading.has(ActKind.HANDOFF) and vocab.HANDED_TO_STAFF.search(agent_text))
        ):
            self.finished = True
            return self.say("transfer_thanks"), Signal.STOP
        if self.confirmed is not None and DONE_CUE.search(agent_text):
            self.done.add(self.confirmed)
            self.confirmed = None
        objection = self._refused(agent_text, reading, declined)
        if objection is not None:
            return objection
        if reading.has(ActKind.CONFIRM) or CONFIRM_CUE.search(agent_text):
            return self._go_ahead(agent_text), Signal.NONE
        if reading.has(ActKind.VERIFY) or ASKS_IDENTITY.search(agent_text):
            return self.verify_identity()
        asks = (
            reading.has(ActKind.ASK)
            or reading.has(ActKind.CHOICE)
            or agent_text.rstrip().endswith(("?", "？"))
        )
        if asks and not (reading.has(ActKind.CLOSING) or reading.has(ActKind.GREETING)):
            return self._detail(agent_text)
        return self._next(reading)

    def _about(self, text: str, table: list[tuple[str, re.Pattern[str]]]) -> int | None:
        for intent, pattern in table:
            if pattern.search(text):
                for i in self._open():
                    if self.requests[i]["intent"] == intent:
                        return i
                return None
        return None

    def _refused(self, text: str, reading: Reading, declined: bool) -> tuple[str, Signal] | None:
        """A refusal settles the request it is about (asked why once if no reason came)."""
        rest = text
        if declined:
            rest = " ".join(
                s for s in re.split(r"(?<=[.!?。！？])\s*", text) if not vocab.NO_ADVICE.search(s)
            )
        refusals = [a for a in reading.of(ActKind.REFUSE) if not vocab.NO_ADVICE.search(a.text)]
        cue = self.refusal_cue.search(rest)
        if not refusals and not cue:
            return None
        if CONFIRM_CUE.search(rest) and not refusals:
            return None
        about = self._about(rest, list(vocab.ABOUT.items()))
        if about is None and self.confirmed is not None:
            about = self.confirmed
        if about is None:
            opened = [
                i
                for i in self._open()
                if self.requests[i]["intent"] not in ("symptom", "medication")
            ]
            about = opened[0] if opened and cue else None
        if about is None:
            return None
        self.confirmed = None
        reason = any(a.reason for a in refusals) or bool(re.search(r"[:：]", rest))
        if not reason and not self.questions[f"why:{about}"]:
            self.questions[f"why:{about}"] += 1
            return self.say("why_not"), Signal.NONE
        self.done.add(about)
        return None

    def _go_ahead(self, text: str) -> str:
        about = self._about(text, PROPOSAL)
        if about is not None and self.requests[about]["intent"] == "book":
            # A booking is the one of its department when the caller wants two.
            dept = vocab.department_in(text)
            same = [
                i
                for i in self._open()
                if self.requests[i]["intent"] == "book" and self.requests[i]["department"] == dept
            ]
            about = same[0] if same else about
        if about is None:
            if vocab.TRANSFERRED.search(text) or vocab.HANDED_TO_STAFF.search(text):
                return self.plain_yes()  # an offer to transfer: the caller accepts one
            return self.say("not_asked", request=self._state(self._focus()))
        r = self.requests[about]
        intent = r["intent"]
        if intent == "book":
            ok = r["date"] in text and vocab.department_in(text) == r["department"]
        elif intent == "move":
            ok = r["date"] in text
        elif intent == "cancel":
            ok = r["from_date"] in text
        elif intent == "records":
            ok = r["scope"] in text and r["delivery"] in text
        elif intent == "document":
            # To the employer or the school if that is what they asked for.
            ok = bool(DOC_WORDS[r["kind"]].search(text)) and (
                not r["to"] or bool(THIRD_PARTY[r["to"]].search(text))
            )
        else:
            ok = False
        if not ok:
            return self.say("not_right", request=self._state(about))
        self.confirmed = about
        return self._affirm(about)

    def _affirm(self, i: int) -> str:
        text = self.plain_yes()
        p = self.persona
        unstated = [j for j in self._open() if j != i and j not in self.stated]
        if p.impatience is Level.HIGH and unstated and self.chance(0.5):
            return self.join(text, self._state(unstated[0]))
        return text

    def _detail(self, text: str) -> tuple[str, Signal]:
        """A question about a request: state it again, with every value the caller has."""
        about = self._about(text, list(vocab.ABOUT.items()))
        if about is None:
            admin = [i for i in self._open() if self.requests[i]["intent"] in vocab.ABOUT]
            about = admin[0] if admin else None
        if about is None:
            if self.asked("unclear"):
                return self.abandon()
            return self.say("unsure"), Signal.NONE
        if self.asked(f"detail:{about}"):
            return self.abandon()
        return self._state(about), Signal.NONE

    def _next(self, reading: Reading) -> tuple[str, Signal]:
        remaining = self._open()
        if not remaining:
            self.finished = True
            return self.say("goodbye"), Signal.STOP
        nxt = next((i for i in remaining if i not in self.stated), remaining[0])
        if nxt in self.stated and (reading.has(ActKind.CLOSING) or reading.has(ActKind.GREETING)):
            return self.say("not_finished", request=self._state(nxt)), Signal.NONE
        return self._state(nxt), Signal.NONE
