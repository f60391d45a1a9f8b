"""`sandbox/scripted` for retail: a customer who follows its scenario.

It reveals what it knows when asked, states its requests (one at a time or all at once),
confirms a summary only when it matches what it wants (otherwise corrects it), accepts a
refusal that cites the policy, and pursues every request before saying goodbye. The persona
(base class) decides how it says it and when it gives up. It reads only the agent's text, by
intent and entities (`vocab.READER`), never by the reference agent's phrases, so it can talk
to any agent. It knows only what a customer knows: nothing in its scenario says what the policy
allows, so it says yes to a proposal that matches what it wants, forbidden or not.
"""

from __future__ import annotations

import re
from dataclasses import replace
from decimal import Decimal
from typing import Any

from evals.domains.retail.scripted import vocab
from evals.domains.retail.scripted.speech import RetailSpeech
from evals.engine.messages import Signal
from evals.engine.persona import Language
from evals.engine.understanding.utterances import Act, ActKind, Reading, option_key

# The reader's actions (evals.engine.understanding.utterances) that carry out each request.
ACTIONS: dict[str, frozenset[str]] = {
    "cancel": frozenset({"cancel"}),
    "return": frozenset({"return", "refund"}),
    "exchange": frozenset({"exchange"}),
    "order_address": frozenset({"change_address", "update"}),
    "default_address": frozenset({"change_address", "update"}),
    "damaged": frozenset({"refund", "submit"}),
    "dispute": frozenset({"handoff", "transfer"}),
    "price_adjustment": frozenset({"handoff", "transfer"}),
    "status": frozenset(),
}
# The reader's slots and what the customer answers to each ("request": it says what it wants).
SLOTS = {
    "order_id": "order",
    "reason": "reason",
    "refund_method": "refund_to",
    "payment_method": "refund_to",
    "item": "items",
    "option": "option",
    "address": "address",
    "amount": "amount",
    "description": "request",
    "charge": "request",
}


def _proposals_joined(reading: Reading) -> Reading:
    """A go-ahead question with nothing in it ("OK to go ahead?") asks about the statement
    just before it: read that statement (often taken for a done or a fact: "$5 is refunded to
    your card") as the proposal's action and entities; failing that, about the message."""
    acts = list(reading.acts)
    for i in range(1, len(acts)):
        act, before = acts[i], acts[i - 1]
        if (
            act.kind is ActKind.CONFIRM
            and not act.action
            and not act.entities
            and before.kind in (ActKind.DONE, ActKind.INFORM)
        ):
            acts[i - 1] = replace(
                act,
                action=before.action,
                entities=before.entities,
                text=f"{before.text} {act.text}",
            )
            del acts[i]
            break
    # A go-ahead question the reader left without entities is about the whole message.
    acts = [
        replace(a, entities=reading.entities, text=reading.text)
        if a.kind is ActKind.CONFIRM and not a.entities
        else a
        for a in acts
    ]
    return replace(reading, acts=tuple(acts))


def _fact_named(r: dict[str, Any], named: set[str], new_option: bool) -> str:
    """Which of the customer's facts an option it wants names ("" when none can say it)."""
    if named & {r.get("refund_to"), r.get("payment")}:
        return "refund_to"
    if named & {r.get("reason")}:
        return "reason"
    if named & {i["name"] for i in r.get("items", ())}:
        return "items"
    return "option" if new_option else ""


def _foreign(language: Language, option: str) -> bool:
    """Whether a Chinese customer would not repeat an option's words: they hold no Chinese."""
    return language is Language.ZH_HANS and not re.search(r"[\u4e00-\u9fff]", option)


def _does(r: dict[str, Any], action: str) -> bool:
    """Whether a proposal of `action` ("" when no verb said it) carries out request `r`."""
    return not action or action in ACTIONS[r["intent"]]


class RetailScriptedUser(RetailSpeech):
    reader = vocab.READER

    # -- answering the agent -------------------------------------------------------------

    def reply(self, agent_text: str) -> tuple[str, Signal]:
        reading = _proposals_joined(vocab.READER.read(agent_text))
        low = agent_text.lower()
        self._settle(reading)
        correction = self.correct_mistake(lambda wrong: wrong.lower() in low)
        if correction is not None:
            return correction
        if reading.has(ActKind.HANDOFF):
            self.finished = True
            return self.say("transfer_thanks"), Signal.STOP
        proposals = reading.of(ActKind.CONFIRM)
        for act in reading.acts:
            if act.kind is ActKind.CONFIRM:
                # One go-ahead question, however many proposals the reader made of its
                # summary: the latest that is what the customer wants, else the last.
                return self._go_ahead(
                    next(
                        (p for p in reversed(proposals) if self._wanted_by(p) is not None),
                        proposals[-1],
                    )
                )
            answer = self._answer_act(act, reading)
            if answer is not None:
                return answer
        if reading.has(ActKind.CLOSING) or reading.has(ActKind.GREETING):
            return self._next_request()
        if any(k in reading.kinds for k in (ActKind.DONE, ActKind.REFUSE, ActKind.INFORM)):
            # A statement that settles something, no question: carry on with what is left.
            return self._next_request()
        if self.asked("unclear"):
            return self.abandon()
        return self.say("unclear"), Signal.NONE

    # -- what the agent said happened ----------------------------------------------------

    def _settle(self, reading: Reading) -> None:
        """Mark requests settled by what the agent says happened: a write done, a refusal
        (accepted: the customer takes the agent's word), a refund status given."""
        if reading.has(ActKind.VERIFY):
            return  # "I can't help before you verify" refuses nothing the customer wants
        for act in reading.of(ActKind.DONE) + reading.of(ActKind.REFUSE):
            i = self._request_of(act)
            if i is not None:
                self.done.add(i)
            self.confirmed = None
        money = reading.values("money")
        for i in self._open():
            r = self.requests[i]
            ids = reading.values("order_id")
            # A customer without its order number takes the agent's word for which order.
            if r["intent"] == "status" and money and (not ids or r.get("order_id", ids[0]) in ids):
                self.done.add(i)

    def _request_of(self, act: Act) -> int | None:
        """The open request an act is about: the one it names (order id and action), else
        the one just confirmed, else the one it names by order id or by action alone, else
        the one in focus."""
        ids = act.values("order_id")
        named = [i for i in self._open() if self.requests[i].get("order_id") in ids]
        acting = [i for i in self._open() if act.action and _does(self.requests[i], act.action)]
        both = [i for i in named if i in acting]
        if both:
            return both[0]
        if self.confirmed is not None and self.confirmed in self._open():
            return self.confirmed
        if named or acting:
            return (named or acting)[0]
        return self._focus() if self._open() else None

    # -- answering what the agent asks ---------------------------------------------------

    def _answer_act(self, act: Act, reading: Reading) -> tuple[str, Signal] | None:
        kind = act.kind
        if kind is ActKind.VERIFY:
            return self.verify_identity(act.slots)
        if kind is ActKind.ASK or (kind is ActKind.CHOICE and not act.options):
            return self._slots(act.slots or ("request",))
        if kind is ActKind.CHOICE:
            return self._choose(act)
        if kind is ActKind.CHECK:
            return self._check(act), Signal.NONE
        if kind is ActKind.USER_STEP:
            return self.say("user_step"), Signal.NONE
        return None

    def _identity(self, slots: tuple[str, ...] = ()) -> str:
        """The details asked for: the other way to find the account when the customer does
        not have the one asked (its email, or its name and zip code), else its own way."""
        ident = self.identity
        asked = set(slots)
        name = f"{ident['first_name']} {ident['last_name']}"
        if asked == {"email"} and ident["gives"] != "email":
            return self.say("forgot_email", name=name, zip=ident["zip"])
        if asked and asked <= {"name", "zip"} and ident["gives"] == "email":
            return self.say("name_and_zip", name=name, zip=ident["zip"])
        return super()._identity(slots)

    def _slots(self, slots: tuple[str, ...]) -> tuple[str, Signal]:
        r = self.requests[self._focus()]
        parts: list[str] = []
        for slot in slots:
            kind = SLOTS.get(slot)
            if kind is None:
                continue
            if self.asked(kind):
                return self.abandon()
            parts.append(self._state(self._focus()) if kind == "request" else self._fact(kind, r))
        if not parts:
            if self.asked("unclear"):
                return self.abandon()
            return self.say("unclear"), Signal.NONE
        return self.join(*dict.fromkeys(parts)), Signal.NONE

    def _choose(self, act: Act) -> tuple[str, Signal]:
        """The option that is what the customer wants (read with the domain's entities: "the
        card you paid with" is the original payment method), else what it wants in its own
        words."""
        r = self.requests[self._focus()]
        wanted = self._wanted(r)
        new = [option_key(o) for o in r.get("new_options", ())]
        kind = next((SLOTS[s] for s in act.slots if s in SLOTS), "request")
        if self.asked(kind):
            return self.abandon()
        for option in act.options:
            named = {e.value for e in vocab.READER.read(option).entities}
            if named & wanted or any(n and (n in option or option in n) for n in new):
                fact = kind if kind != "request" else _fact_named(r, named, bool(new))
                if _foreign(self.language, option) and fact:
                    # An option in another language: said in the customer's own words.
                    return self._fact(fact, r), Signal.NONE
                return self.say("choose", option=option.capitalize()), Signal.NONE
        if kind == "request":
            return self.say("none_of_those", request=self._state(self._focus())), Signal.NONE
        return self._fact(kind, r), Signal.NONE

    def _wanted(self, r: dict[str, Any]) -> set[str]:
        """The entity values of what the customer wants: refund method, reason, items."""
        wanted = {r.get("payment" if r["intent"] == "exchange" else "refund_to") or ""}
        wanted |= {r.get("reason") or ""}
        if r["intent"] != "exchange":
            wanted |= {i["name"] for i in r.get("items", ())}
        return wanted - {""}

    def _order_unknown(self, r: dict[str, Any], act: Act) -> str:
        """For a customer who knows its order only by its items, whether an act naming an
        order by number is about its order: "" when the act also names something it bought,
        "unnamed" when it names no item (a number tells this customer nothing), else "other"."""
        items = set(act.values("item"))
        if not items:
            return "unnamed"
        return "" if items & {i["name"] for i in r.get("items", ())} else "other"

    def _check(self, act: Act) -> str:
        """A fact to confirm: yes when every value it names is one the customer knows; an
        order it knows no number of, yes only when named with the items it bought."""
        r = self.requests[self._focus()]
        known = {self.identity["zip"], self.identity["email"].lower(), r.get("order_id", "")}
        if "order_id" not in r and r.get("items") and act.values("order_id"):
            unlike = self._order_unknown(r, act)
            if unlike:
                key = "id_unknown" if unlike == "unnamed" else "not_that_order"
                return self.say(key, items=self.items_text(r))
            known |= set(act.values("order_id"))  # named with what the customer bought
        named = [e.value for e in act.entities if e.kind in ("zip", "email", "order_id")]
        wrong = [x for x in named if x not in known]
        if wrong:
            return self.say("check_wrong", identity=self._identity())
        return self.say("check_yes")

    def _next_request(self) -> tuple[str, Signal]:
        """Asked what else (or told something settled): the next open request, or goodbye."""
        remaining = self._open()
        if not remaining:
            self.finished = True
            return self.say("goodbye"), Signal.STOP
        nxt = next((i for i in remaining if i not in self.stated), remaining[0])
        if nxt in self.stated:
            if self.asked(f"again:{nxt}"):
                return self.abandon()
            return self.say("not_finished", request=self._state(nxt)), Signal.NONE
        return self._state(nxt), Signal.NONE

    # -- a go-ahead ----------------------------------------------------------------------

    def _go_ahead(self, act: Act) -> tuple[str, Signal]:
        """Yes when the proposal's action and entities are what the customer wants (whatever
        the policy says: the guard and the oracle judge that), else what it wants instead; a
        customer corrected in vain too often gives up."""
        wanted = self._wanted_by(act)
        if wanted is not None:
            self.confirmed = wanted
            return self.plain_yes(), Signal.NONE
        candidates = [i for i in self._open() if _does(self.requests[i], act.action)]
        best: tuple[int, list[str]] | None = None
        for i in candidates or self._open():
            wrong = self._mismatches(self.requests[i], act)
            if best is None or len(wrong) < len(best[1]):
                best = (i, wrong)
        if self.asked("correction"):
            return self.abandon()
        if best is None or not _does(self.requests[best[0]], act.action):
            return self._decline(), Signal.NONE
        return self.say("correction", fixes=self.join(*best[1])), Signal.NONE

    def _wanted_by(self, act: Act) -> int | None:
        """The open request a proposal carries out exactly as the customer wants it."""
        return next((i for i in self._open() if not self._mismatches(self.requests[i], act)), None)

    def _mismatches(self, r: dict[str, Any], act: Act) -> list[str]:
        """What the proposal gets wrong for request `r`, each as the customer's correction."""
        intent = r["intent"]
        out: list[str] = []
        if not _does(r, act.action):
            return [self._state(self.requests.index(r))]
        text = act.text.lower()
        ids = act.values("order_id")
        items = set(act.values("item"))
        wanted_items = {i["name"] for i in r.get("items", ())}
        if ids and "order_id" not in r and wanted_items:
            # An order named by number only, or with items that are not the customer's.
            unlike = self._order_unknown(r, act)
            if unlike and not (items and intent in ("return", "exchange", "damaged")):
                out.append(self.say("fix_order_unknown", items=self.items_text(r)))
        elif self.order_known and ids and r.get("order_id") not in ids:
            out.append(self.say("fix_order", order_id=r["order_id"]))
        if intent in ("return", "exchange", "damaged") and items and items != wanted_items:
            out.append(self.say("fix_items", items=self.items_text(r)))
        reasons = act.values("reason")
        if intent == "cancel" and reasons and r.get("reason") not in reasons:
            out.append(self._reason(r))
        dest = r.get("refund_to") if intent == "return" else r.get("payment")
        methods = act.values("refund_to")
        if dest and methods and dest not in methods:
            out.append(self._refund_to(r) if intent == "return" else self.say("fix_gift_card"))
        if intent == "exchange" and not all(o.lower() in text for o in r["new_options"]):
            out.append(self.say("fix_option", new=self.options_text(r)))
        if (
            intent.endswith("address")
            and "address" in r
            and r["address"]["line1"].lower() not in text
        ):
            out.append(self.say("fix_address", address=self._address(r)))
        if intent == "damaged" and f"{Decimal(r['amount']):.2f} USD" not in act.values("money"):
            out.append(self.say("fix_amount", amount=r["amount"]))
        return out
