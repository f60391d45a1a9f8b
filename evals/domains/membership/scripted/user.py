"""`sandbox/scripted` for membership: a member who follows their scenario.

They reveal what they know when asked (email, or member number and date of birth — a wrong
date first when the scenario says so, corrected once the agent repeats it), state their
requests one at a time or all at once, confirm a summary only when it matches what they want
(otherwise correct it), accept a refusal that cites the policy, and pursue every request
before saying goodbye. The persona (the engine's ScriptedUserBase) decides how they say it and
when they give up. They read only the agent's text.
"""

from __future__ import annotations

from typing import Any

from evals.domains.membership.scripted import vocab as v
from evals.engine.messages import Signal
from evals.engine.persona import Level
from evals.engine.sandbox import ScriptedUserBase

AFFIRM_EN = [
    "Yes, please go ahead.",
    "Yes.",
    "Yep, that's right.",
    "Confirm.",
    "Sure, do it.",
    "Okay, go ahead.",
    "Yes please.",
]
AFFIRM_ZH = ["是的，请继续。", "确认。", "好的，可以。"]
GOODBYE = ["No, that's all. Thanks!", "That's everything, thank you.", "Nothing else, bye."]
LABELS = {"guest_pass": "guest passes", "pt_session": "personal-training sessions"}
# Words by which the member recognises which of their requests an agent's refusal is about.
REFUSAL_TOPIC = {
    "plan_change": ("plan", "downgrade", "upgrade"),
    "freeze": ("freeze",),
    "unfreeze": ("unfreeze",),
    "cancel": ("cancel",),
    "waive": ("waive",),
    "refund": ("refund",),
}


def _slip(dob: str) -> str:
    """The confused member's slip: the last two digits of the day swapped (or +1 year)."""
    year, month, day = dob.split("-")
    swapped = day[::-1]
    if swapped != day and 1 <= int(swapped) <= 28:
        return f"{year}-{month}-{swapped}"
    return f"{int(year) - 1}-{month}-{day}"


class MembershipScriptedUser(ScriptedUserBase):
    def __init__(self, *, scenario: Any, persona: Any, seed: int) -> None:
        super().__init__(scenario=scenario, persona=persona, seed=seed)
        self.requests: list[dict[str, Any]] = [dict(r) for r in self.data["requests"]]
        self.done: set[int] = set()
        self.identity = self.data["identity"]
        self.confirmed: int | None = None

    @classmethod
    def factory(
        cls, *, domain: Any, scenario: Any, persona: Any, params: Any, seed: int
    ) -> MembershipScriptedUser:
        return cls(scenario=scenario, persona=persona, seed=seed)

    # -- what the member says ------------------------------------------------------------

    def _months(self, r: dict[str, Any]) -> str:
        months = r["months"]
        right = f"{months} month" + ("s" if months > 1 else "")
        if right not in self.fixed and not self.mistakes and self.confused():
            wrong_n = 3 if months != 3 else 2
            wrong = f"{wrong_n} months"
            self.mistakes[wrong] = right
            return wrong
        return right

    def _state(self, i: int) -> str:
        self.stated.add(i)
        r = self.requests[i]
        intent = r["intent"]
        if intent == "plan_change":
            verb = "upgrade" if r["direction"] == "upgrade" else "downgrade"
            return self.pick(
                [
                    f"I'd like to {verb} to the {r['plan_name']} plan.",
                    f"Please switch my membership to the {r['plan_name']} plan.",
                    f"Can I {verb} my plan to {r['plan_name']}?",
                ]
            )
        if intent == "freeze":
            if self.chance(0.3):
                return self.pick(
                    ["I'd like to freeze my membership.", "Can I pause my membership for a while?"]
                )
            return self.pick(
                [
                    f"I'd like to freeze my membership for {self._months(r)}.",
                    f"Please freeze my membership for {self._months(r)}; I'm travelling.",
                ]
            )
        if intent == "unfreeze":
            return self.pick(
                [
                    "I'm back from travelling; please unfreeze my membership.",
                    "Can you unfreeze my membership? I want to train again.",
                ]
            )
        if intent == "cancel":
            if r["accept_fee"]:
                text = self.pick(
                    ["I'd like to cancel my membership.", "Please cancel my membership."]
                )
                return text + (" I understand there may be a fee." if self.chance(0.4) else "")
            return self.pick(
                [
                    "I want to cancel my membership, but I won't pay any cancellation fee.",
                    "Please cancel my membership without any fee.",
                ]
            )
        if intent == "waive":
            return (
                f"There's a late fee of {r['amount']} {r['currency']} on my {r['period']} invoice. "
                + self.pick(["Could you waive it?", "Can you waive it, please?"])
            )
        if intent == "refund":
            return self._refund(r)
        if intent == "dispute":
            if r["what"] == "late_fee":
                return (
                    f"The late fee of {r['amount']} {r['currency']} on my {r['period']} invoice is wrong and "
                    "I dispute it."
                )
            return (
                "I dispute the early cancellation fee you charge: it's unfair and I want a person to "
                "review it."
            )
        return f"How many {LABELS[r['kind']]} do I have left?"

    def _refund(self, r: dict[str, Any]) -> str:
        amount = f"{r['amount']} {r['currency']}"
        if r["what"] == "duplicate":
            return self.pick(
                [
                    f"I was charged twice for my {r['period']} dues: {amount} two times. "
                    "Please refund the duplicate.",
                    f"My {r['period']} invoice has the dues of {amount} twice. I'd like a refund.",
                ]
            )
        if r["what"] == "class":
            text = f"I was charged {amount} for a class drop-in on my {r['period']} invoice."
            if r.get("claim") == "checkins":
                return (
                    text
                    + " That's wrong: my check-ins show I go to studio classes all the time, so classes "
                    "are part of my membership. Please refund it."
                )
            return text + " But I have a class pack. Please refund it."
        return f"I didn't use the gym in {r['period']}, so please refund my {r['period']} dues of {amount}."

    def _identity(self) -> str:
        ident = self.identity
        if ident["gives"] == "email":
            return self.pick([f"My email is {ident['email']}.", f"It's {ident['email']}."])
        dob = ident["dob"]
        wrong = ident.get("wrong_dob") or ""
        if dob not in self.fixed and not self.mistakes:
            if not wrong and self.confused():
                wrong = _slip(dob)
            if wrong and wrong != dob:
                self.mistakes[wrong] = dob
                dob = wrong
        number = ident["member_number"]
        if self.persona.incoherence is Level.HIGH:
            return f"born {dob}... the card says {number}"
        return self.pick(
            [
                f"My member number is {number} and my date of birth is {dob}.",
                f"Member number {number}, born {dob}.",
            ]
        )

    def opening(self) -> str:
        if self.persona.incoherence is Level.HIGH and self.chance(0.7):
            return self.pick(
                ["hi. problem with my membership", "hello?? need help with the gym thing"]
            )
        if self.data.get("ordered") or (len(self.requests) > 1 and self.chance(0.5)):
            parts = [self._state(i) for i in range(len(self.requests))]
            text = " Then ".join(parts) if self.data.get("ordered") else " Also, ".join(parts)
        else:
            text = self._state(0)
        if self.persona.skepticism is Level.LOW and self.chance(0.3):
            text = f"{self._identity()} {text}"
        return text

    # -- answering the agent -------------------------------------------------------------

    def _open(self) -> list[int]:
        return [i for i in range(len(self.requests)) if i not in self.done]

    def _focus(self) -> int:
        stated_open = [i for i in self._open() if i in self.stated]
        return stated_open[0] if stated_open else (self._open() or [0])[0]

    def _matches(self, r: dict[str, Any], low: str) -> bool:
        intent = r["intent"]
        if intent == "plan_change":
            return r["plan_name"].lower() in low and "plan" in low
        if intent == "freeze":
            return "freeze" in low and f"{r['months']} month" in low
        if intent == "unfreeze":
            return "unfreeze" in low
        if intent == "cancel":
            return "cancel" in low and bool(r["accept_fee"])
        if intent == "waive":
            return "waive" in low and r["amount"] in low
        if intent == "refund":
            return "refund" in low and r["amount"] in low
        return False

    def _affirm(self, i: int) -> str:
        """A yes, as this persona says it: hesitant, hurried, or with the next request bundled
        in — each a real way a confirmation gets harder to read."""
        text = self.pick(AFFIRM_ZH) if self.chance(0.2) else self.pick(AFFIRM_EN)
        p = self.persona
        if p.incoherence is Level.HIGH and self.chance(0.35):
            return "yes... wait, yes. that's right"
        if p.urgency is Level.HIGH and self.chance(0.3):
            return "Yes, but hurry up, please."
        unstated = [j for j in self._open() if j != i and j not in self.stated]
        if p.impatience is Level.HIGH and unstated and self.chance(0.5):
            return f"{text} Also, {self._state(unstated[0])}"
        return text

    def _decline(self) -> str:
        """A no to a summary that does not match: a request the member drops (one the policy
        refuses, a cancellation with a fee they won't pay) or what they want instead."""
        focus = self.requests[self._focus()]
        if focus.get("expect") == "refusal" or (
            focus["intent"] == "cancel" and not focus["accept_fee"]
        ):
            self.done.add(self._focus())
            return "No, don't do that then."
        return f"No, that's not right. {self._state(self._focus())}"

    def reply(self, agent_text: str) -> tuple[str, Signal]:
        low = agent_text.lower()
        shared = self.first_moves(low, v.TRANSFER)
        if shared is not None:
            return shared
        if v.DONE.lower() in low and self.confirmed is not None:
            self.done.add(self.confirmed)
            self.confirmed = None
        elif "won't do that" in low and self.confirmed is not None:
            # The agent did not take the yes: say it again rather than drop the request.
            i, self.confirmed = self.confirmed, None
            return f"But I said yes. {self._state(i)}", Signal.NONE
        if v.CONFIRM_TAIL.lower() in low:
            for i in self._open():
                r = self.requests[i]
                if self._matches(r, low):
                    self.confirmed = i
                    return self._affirm(i), Signal.NONE
            return self._decline(), Signal.NONE
        for i in self._open():
            r = self.requests[i]
            if r["intent"] == "balance" and LABELS[r["kind"]] in low and " left" in low:
                self.done.add(i)
        if v.SORRY_CANT.lower() in low and self._open():
            refused = low.split(v.SORRY_CANT.lower(), 1)[1]
            about = [
                i
                for i in self._open()
                if any(w in refused for w in REFUSAL_TOPIC.get(self.requests[i]["intent"], ()))
            ]
            self.done.add(about[0] if about else self._focus())
        return self._answer(low)

    def _answer(self, low: str) -> tuple[str, Signal]:
        focus = self._focus()
        questions = [
            ("which plan", "plan", ("plan_change",)),
            ("how many months", "months", ("freeze",)),
            ("which charge", "charge", ("refund", "waive", "dispute")),
            ("which entitlement", "kind", ("balance",)),
        ]
        for phrase, kind, intents in questions:
            if phrase in low:
                if self.asked(kind):
                    return self.abandon()
                # Answer about the request the question concerns, not just the latest one.
                about = [i for i in self._open() if self.requests[i]["intent"] in intents]
                return self._fact(kind, self.requests[about[0] if about else focus]), Signal.NONE
        if v.ANYTHING_ELSE.lower() in low or v.HOW_CAN_I_HELP.lower() in low:
            remaining = self._open()
            if not remaining:
                self.finished = True
                return self.pick(GOODBYE), Signal.STOP
            nxt = next((i for i in remaining if i not in self.stated), remaining[0])
            if nxt in self.stated:
                return f"You haven't finished my other request. {self._state(nxt)}", Signal.NONE
            return self._state(nxt), Signal.NONE
        return self._state(focus), Signal.NONE

    def _fact(self, kind: str, r: dict[str, Any]) -> str:
        if kind == "plan":
            return f"The {r.get('plan_name', 'Premium')} plan."
        if kind == "months":
            return f"{self._months(r) if 'months' in r else '1 month'}."
        if kind == "charge":
            return (
                self._refund(r) if r["intent"] == "refund" else self._state(self.requests.index(r))
            )
        return f"The {LABELS.get(r.get('kind', ''), 'guest passes')}."
