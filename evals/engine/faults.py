"""Agents with one injected fault each, for mutation tests of the oracle and for the
`golive selftest`: the domain's reference agent with one behaviour broken, plus an agent that
does nothing. `EXPECTED` says which failure class the oracle must report for each.

Registered as `sandbox/fault:<name>` (e.g. `sandbox/fault:wrong_amount`, `sandbox/fault:do_nothing`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evals.engine.errors import EngineError
from evals.engine.messages import Message, Signal
from evals.engine.oracle import FailureClass
from evals.engine.protocols import Agent
from evals.engine.registry import register_agent
from evals.engine.sandbox import Fault

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
