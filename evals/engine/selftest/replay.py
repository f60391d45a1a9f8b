"""The self-test's stand-ins for a domain without offline models of its own (τ² retail): an
agent that replays the task's gold actions and a customer that only ever says yes.

They test the oracle, not an agent: the self-test harness builds them from the task itself
(they read its gold, which no agent under test may), and they are registered under no name,
so no suite can pick them. The replaying agent still behaves as the policy asks of any agent
— it looks the customer up before acting on the account, and before each write it names the
action and every argument value and asks "Shall I proceed? (yes/no)" — so a domain's policy
guard lets it through, and the injected faults (`evals.engine.faults`) change one behaviour
of it as they do of a domain's reference agent.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

from evals.engine.domain import Domain
from evals.engine.fidelity import asks_for_confirmation
from evals.engine.messages import Message, Role, Signal, ToolCall
from evals.engine.sandbox import ReferenceAgentBase
from evals.engine.task import GoldCall, Task
from evals.engine.tools import Actor, ToolKind
from evals.engine.world import World

DONE = "All done."
GOODBYE = "Thank you, goodbye."
YES = "Yes, please."


# -- the actions to replay -------------------------------------------------------------------


@cache
def _tau2_reads(folder: str) -> dict[str, list[GoldCall]]:
    """τ²'s published READ actions per task id, in order (its lookups authenticate the
    customer; a few first try what the customer wrongly said and fail, as published)."""
    from evals.domains import get_domain
    from evals.domains.tau2_common.data import gold_actions, read_json

    tools = get_domain(f"tau2_{folder}").tools
    return {
        str(raw["id"]): [
            GoldCall(name, args)
            for name, args in gold_actions(raw)
            if (tool := tools.get(name)) is not None and tool.kind is ToolKind.READ
        ]
        for raw in read_json(folder, "tasks.json")
    }


def _tau2_retail_login(
    world: World, reads: Sequence[GoldCall], writes: Sequence[GoldCall]
) -> list[GoldCall]:
    """A lookup by email of the account the writes act on, when τ²'s gold has none (most
    of its tasks list their writes only)."""
    if any(r.name.startswith("find_user_id_by_") for r in reads):
        return []
    users, orders = world.tables["users"], world.tables["orders"]
    for call in writes:
        user_id = call.arguments.get("user_id") or orders.get(
            str(call.arguments.get("order_id", "")), {}
        ).get("user_id")
        if user_id in users:
            return [GoldCall("find_user_id_by_email", {"email": users[user_id]["email"]})]
    return []


# Domains whose tasks come from τ²-bench: the folder of their published data, and how the
# replay authenticates the customer when the published actions do not.
_TAU2: dict[
    str, tuple[str, Callable[[World, Sequence[GoldCall], Sequence[GoldCall]], list[GoldCall]]]
] = {
    "tau2_retail": ("retail", _tau2_retail_login),
}


def _addressed_reads(domain: Domain, writes: Sequence[GoldCall]) -> list[GoldCall]:
    """For each write, the domain's READ tools that take only arguments the write names
    (get_order_details(order_id) before acting on the order), as any careful agent reads
    the record before changing it."""
    reads: list[GoldCall] = []
    for call in writes:
        for tool in domain.tools:
            if tool.kind is not ToolKind.READ or tool.actor is not Actor.AGENT:
                continue
            required = [p.name for p in tool.params if p.required]
            if required and all(isinstance(call.arguments.get(n), str) for n in required):
                read = GoldCall(tool.name, {n: call.arguments[n] for n in required})
                if all(r.key() != read.key() for r in reads):
                    reads.append(read)
    return reads


def replay_actions(domain: Domain, task: Task) -> list[GoldCall]:
    """What the replaying agent does, in order: the reads (τ²'s published ones, a login
    when they have none, each lookup the task requires that those do not make, then a read
    of each record a write acts on), then the task's gold writes (`Task.gold`: the
    published writes that succeed)."""
    writes = list(task.gold)
    reads: list[GoldCall] = []
    if domain.name in _TAU2:
        folder, login = _TAU2[domain.name]
        published = _tau2_reads(folder).get(task.id, [])
        reads = [*login(domain.fresh_world(task.world_seed), published, writes), *published]
    for alternatives in task.required_reads:
        if not any(_satisfies(r, alt) for alt in alternatives for r in reads):
            reads.append(alternatives[0])
    for read in _addressed_reads(domain, writes):
        if all(r.key() != read.key() for r in reads):
            reads.append(read)
    return [*reads, *writes]


def _satisfies(read: GoldCall, required: GoldCall) -> bool:
    return read.name == required.name and all(
        read.arguments.get(k) == v for k, v in required.arguments.items()
    )


# -- the replaying agent and the customer that says yes ---------------------------------------


def _shown(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(_shown(v) for v in value)
    if isinstance(value, Mapping):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def summary(call: GoldCall) -> str:
    """The action and every argument value, as the confirmation rule wants them named."""
    values = "; ".join(f"{k}: {_shown(v)}" for k, v in call.arguments.items())
    action = call.name.replace("_", " ")
    return f"I will {action} ({call.name}) with {values}." if values else f"I will {action}."


class GoldReplayAgent(ReferenceAgentBase):
    """Replays `replay_actions`: every read at once, then each write summarised, confirmed
    and made (in the order `order_requests` gives: reversed under the wrong-order fault),
    then says it is done with the facts the task wants communicated."""

    def __init__(self, *, domain: Domain, task: Task, fault: str, seed: int) -> None:
        super().__init__(domain=domain, params={"fault": fault}, seed=seed)
        actions = replay_actions(domain, task)
        self.reads = [a for a in actions if domain.tools[a.name].kind is ToolKind.READ]
        self.writes = [a for a in actions if domain.tools[a.name].kind is ToolKind.WRITE]
        self.facts = " ".join(alternatives[0] for alternatives in task.communicate)

    def observe_user(self, text: str) -> None:
        """It needs nothing from the customer but its yes."""

    def observe_tool(self, name: str, args: dict[str, Any], content: str, error: bool) -> None:
        """Results change nothing: the gold is replayed as it is."""

    def declined(self, name: str, args: dict[str, Any]) -> None:
        """A write the customer did not affirm is dropped (the base already did)."""

    def plan(self) -> Message:
        if self.reads:
            reads, self.reads = self.reads, []
            made = [self.call(read.name, **read.arguments) for read in reads]
            return Message.assistant("", tuple(c for m in made for c in m.tool_calls))
        if self.writes:
            call = self.order_requests(self.writes)[0]
            self.writes.remove(call)
            return self.propose(call.name, dict(call.arguments), summary(call))
        return self.say(f"{DONE} {self.facts}".strip())


class YesCustomer:
    """Opens with the scenario's reason, says yes to every request for confirmation, and
    once the agent says anything else (it is done) makes its own writes of the task, if
    any (`Task.user_gold`), and says goodbye."""

    def __init__(self, *, task: Task) -> None:
        self.reason = task.scenario.reason
        self.own = list(task.user_gold)
        self.calls = 0
        self.opened = False

    def respond(self, messages: Sequence[Message]) -> Message:
        if not self.opened:  # after the task's history, if it continues one
            self.opened = True
            return Message.user(self.reason)
        last = next((m for m in reversed(messages) if m.role is not Role.TOOL), None)
        if last is not None and last.role is Role.ASSISTANT and asks_for_confirmation(last.content):
            return Message.user(YES)
        if self.own:
            own, self.own = self.own, []
            calls = []
            for call in own:
                self.calls += 1
                raw = json.dumps(dict(call.arguments), ensure_ascii=False)
                calls.append(ToolCall(f"user_call_{self.calls}", call.name, raw))
            return Message(Role.USER, tool_calls=tuple(calls))
        return Message.user(GOODBYE, Signal.STOP)
