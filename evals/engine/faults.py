"""Agents with one injected fault each, for mutation tests of the oracle and for the
`golive selftest`: the domain's reference agent with one behaviour broken, plus an agent that
does nothing. `EXPECTED` says which failure class the oracle must report for each, `APPLIES`
on which tasks the fault must make the trial fail.

Applicability is decided from the task and its domain alone, never from what an agent did:
a fault applies where any agent carrying it must end in a wrong outcome the deterministic
oracle can see. Stopping after the first write cannot be wrong on a task with one write;
swapping the order of writes cannot be wrong where either order leaves the same state.

Registered as `sandbox/fault:<name>` (e.g. `sandbox/fault:wrong_amount`, `sandbox/fault:do_nothing`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evals.engine.domain import Domain
from evals.engine.errors import EngineError
from evals.engine.messages import Message, Signal
from evals.engine.oracle import FailureClass, gold_state, replay
from evals.engine.protocols import Agent
from evals.engine.registry import register_agent
from evals.engine.sandbox import Fault
from evals.engine.sandbox.agent import amount_argument, item_argument
from evals.engine.task import Task
from evals.engine.world import canonical

DO_NOTHING = "do_nothing"

EXPECTED: dict[str, FailureClass] = {
    Fault.SKIP_CONFIRMATION.value: FailureClass.POLICY_VIOLATION,
    Fault.WRONG_AMOUNT.value: FailureClass.WRONG_ARGUMENTS,
    Fault.WRONG_ITEM.value: FailureClass.WRONG_ARGUMENTS,
    Fault.STOP_AFTER_FIRST.value: FailureClass.OMISSION,
    Fault.WRONG_ORDER.value: FailureClass.WRONG_ORDER,
    # Dual control only (a domain with the customer's own tools): the agent's writes are
    # right, then it ends the conversation before the customer has done its part.
    Fault.END_BEFORE_USER.value: FailureClass.COORDINATION,
    DO_NOTHING: FailureClass.OMISSION,
}


# -- where each fault applies ------------------------------------------------------------


def several_writes(domain: Domain, task: Task) -> bool:
    """stop_after_first: two or more agent-side gold writes (the second is left undone)."""
    return len(task.gold) >= 2


def order_matters(domain: Domain, task: Task) -> bool:
    """wrong_order: the gold writes replayed in reverse on a fresh world end in another
    state, or one of them fails."""
    if len(task.gold) < 2:
        return False
    try:
        reversed_world = replay(domain, task.gold[::-1], domain.fresh_world(task.world_seed))
    except EngineError:
        return True
    return reversed_world.state_hash() != gold_state(domain, task).hash


def customer_acts(domain: Domain, task: Task) -> bool:
    """end_before_user: the customer has writes of its own to make (`user_gold`)."""
    return bool(task.user_gold)


def has_amount(domain: Domain, task: Task) -> bool:
    """wrong_amount: a gold write passes an amount in its currency's decimals ("3200" JPY,
    "12.50" EUR, "11.437" KWD; "12.50" when the write names no currency)."""
    return any(amount_argument(g.arguments) for g in task.gold)


def _item_ids(value: Any) -> set[str]:
    """Every value held under an `item_id` key anywhere in a canonical record."""
    if isinstance(value, Mapping):
        found = {str(value["item_id"])} if isinstance(value.get("item_id"), str) else set()
        for inner in value.values():
            found |= _item_ids(inner)
        return found
    if isinstance(value, list):
        return set().union(*(_item_ids(v) for v in value)) if value else set()
    return set()


def has_other_item(domain: Domain, task: Task) -> bool:
    """wrong_item: a gold write names items (`item_id`, `...item_ids`) of a record it
    addresses by another argument (an order, an invoice) that holds another item too, so
    the agent has a wrong one to pick from what it read."""
    world = domain.fresh_world(task.world_seed)
    for call in task.gold:
        key = item_argument(call.arguments)
        if not key:
            continue
        value = call.arguments[key]
        chosen = set(value) if isinstance(value, list) else {value}
        addresses = {v for k, v in call.arguments.items() if k != key and isinstance(v, str)}
        for rows in world.tables.values():
            for address in addresses & set(rows):
                if _item_ids(canonical(rows[address])) - chosen:
                    return True
    return False


def confirmation_declared(domain: Domain, task: Task) -> bool:
    """skip_confirmation: a gold write is of a tool that declares the confirmation rule."""
    return any(
        (tool := domain.tools.get(g.name)) is not None and tool.confirm is not None
        for g in task.gold
    )


def nothing_fails(domain: Domain, task: Task) -> bool:
    """do_nothing: every task on which the untouched world already fails a deterministic
    component (a gold write to make, a handoff, information to give, a record to read, an
    assertion false at the start). A task whose right outcome changes nothing and is judged
    otherwise only in prose (`nl_assertions`) is for a judge to catch, not this oracle."""
    basis = set(task.reward_basis)
    if "state" in basis and task.gold:
        untouched = domain.fresh_world(task.world_seed).state_hash()
        if untouched != gold_state(domain, task).hash:
            return True
    if "handoff" in basis and task.handoff_category:
        return True
    if "communicate" in basis and task.communicate:
        return True
    if "lookup" in basis and task.required_reads:
        return True
    if "assertions" in basis and task.assertions:
        world = domain.fresh_world(task.world_seed)
        return not all(domain.check(world, a) for a in task.assertions)
    return False


APPLIES: dict[str, Callable[[Domain, Task], bool]] = {
    Fault.SKIP_CONFIRMATION.value: confirmation_declared,
    Fault.WRONG_AMOUNT.value: has_amount,
    Fault.WRONG_ITEM.value: has_other_item,
    Fault.STOP_AFTER_FIRST.value: several_writes,
    Fault.WRONG_ORDER.value: order_matters,
    Fault.END_BEFORE_USER.value: customer_acts,
    DO_NOTHING: nothing_fails,
}


# -- the faulty agents ---------------------------------------------------------------------


class DoNothingAgent:
    """Talks politely and never acts: must score 0 on every task that needs an action."""

    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        return Message.assistant(
            "Thank you for reaching out. We'll look into it.", signal=Signal.END
        )


def faulty_agent(fault: str, *, domain: Any, params: Mapping[str, Any], seed: int) -> Agent:
    if fault == DO_NOTHING:
        return DoNothingAgent()
    if domain.reference_agent is None:
        raise EngineError(f"Domain {domain.name} has no reference agent to inject faults into")
    return domain.reference_agent(domain=domain, params={**params, "fault": fault}, seed=seed)


def agent_name(fault: str) -> str:
    return f"sandbox/fault:{fault}"


def _register() -> None:
    for fault in EXPECTED:

        def factory(*, domain: Any, params: Mapping[str, Any], seed: int, _f: str = fault) -> Agent:
            return faulty_agent(_f, domain=domain, params=params, seed=seed)

        register_agent(agent_name(fault), factory)


_register()
