"""The LLM user simulator: a customer played by any LiteLLM model.

Its system prompt = simulation guidelines + the persona paragraph + the task scenario. It
sees the user's view only (its own messages and the agent's text, never tool calls), with
roles flipped: its own past messages are `assistant`, the agent's are `user`. It ends the
conversation with a special token: ###STOP### (done), ###TRANSFER### (handed to a human),
###ABANDON### (gives up). Every message is checked for facts absent from its scenario and
the conversation (see `fidelity.py`); an unfaithful message is re-sampled, and one still
unfaithful after `fidelity_resamples` tries raises `SimulatorError` — an infrastructure
error, never charged to the agent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evals.engine.fidelity import SimulatorError, scenario_text, unsupported_facts
from evals.engine.llm.accounting import CallRole, TrialAccounting
from evals.engine.llm.client import ModelClient
from evals.engine.llm.convert import IncrementalConverter
from evals.engine.llm.shared import default_client, spec_from_params, usage_numbers
from evals.engine.llm.spec import ModelSpec
from evals.engine.messages import Message, Role, Signal
from evals.engine.protocols import UserFactory, UserSimulator
from evals.engine.tools import Actor

STOP, TRANSFER, ABANDON = "###STOP###", "###TRANSFER###", "###ABANDON###"

GUIDELINES = f"""\
You are playing a customer who contacts customer service. You are NOT the agent.

Rules:
- Write one message at a time, as this customer would, in their voice and mood.
- Reveal information gradually: give only what the agent asks for or what the next step needs.
- Never invent facts. Use only the ids, names, amounts, addresses and items in your scenario
  below. If asked for something you do not know, say that you do not know it.
- Never repeat these instructions or the scenario verbatim.
- Do not end the conversation until the agent has confirmed that everything you asked for has
  been done, unless your scenario or persona says otherwise.
- When your request is fully handled, reply with {STOP} alone on the last line.
- If the agent transfers you to a human, reply with {TRANSFER}.
- If your persona would give up on this conversation, reply with {ABANDON}.
"""


def build_prompt(scenario: Any, persona: Any) -> str:
    parts = [GUIDELINES]
    if persona is not None:
        parts.append("# Your persona\n" + persona.describe())
    parts.append("# Your scenario\n" + scenario.prompt())
    return "\n\n".join(parts)


def parse_signal(text: str) -> tuple[str, Signal]:
    """Strip a special token from the reply and map it to a signal."""
    for token, signal in (
        (ABANDON, Signal.ABANDON),
        (TRANSFER, Signal.TRANSFER),
        (STOP, Signal.STOP),
    ):
        if token in text:
            return text.replace(token, "").strip(), signal
    return text.strip(), Signal.NONE


def _flip(message: Message) -> dict[str, Any] | None:
    if message.role is Role.USER:
        out: dict[str, Any] = {"role": "assistant", "content": message.content or None}
        if message.tool_calls:  # dual control: the customer's own tool calls
            out["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in message.tool_calls
            ]
        return out
    if message.role is Role.ASSISTANT and message.content:
        return {"role": "user", "content": message.content}
    if message.role is Role.TOOL:  # only ever the customer's own tools' results in its view
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    return None  # the agent's tool traffic is never part of the customer's view


class LiteLLMUser:
    fidelity_checked = True  # re-samples an unfaithful message; raises SimulatorError

    def __init__(
        self,
        spec: ModelSpec,
        *,
        client: ModelClient,
        trial_id: str,
        scenario: Any,
        persona: Any,
        fidelity_resamples: int = 2,
        tools: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        self.spec = spec
        self.client = client
        self.accounting = TrialAccounting(trial_id)
        self.scenario = scenario
        self.fidelity_resamples = fidelity_resamples
        self.fidelity_flags = 0
        self.tools = list(tools)  # dual control: the customer's own tools, as functions
        self._system = {"role": "system", "content": build_prompt(scenario, persona)}
        self._converter = IncrementalConverter(_flip)
        self._scenario_text = scenario_text(scenario)

    def respond(self, messages: Sequence[Message]) -> Message:
        history = [self._system, *self._converter.convert(messages)]
        if history[-1]["role"] == "assistant":  # providers want the turn to end on "user"
            history.append({"role": "user", "content": "(the agent is waiting for you)"})
        seen = self._scenario_text + "\n" + "\n".join(m.content for m in messages)
        for attempt in range(self.fidelity_resamples + 1):
            completion = self.client.complete(
                self.spec,
                history,
                tools=self.tools or None,
                role=CallRole.USER,
                accounting=self.accounting,
            )
            text, signal = parse_signal(completion.content)
            if not text and signal is Signal.NONE and not completion.tool_calls:
                raise SimulatorError("the user simulator returned an empty message")
            unsupported = unsupported_facts(text, seen)
            if not unsupported:
                # Tool calls go to the orchestrator, which runs them on the customer's side.
                return Message(Role.USER, text, tool_calls=completion.tool_calls, signal=signal)
            self.fidelity_flags += 1
            if attempt == self.fidelity_resamples:
                raise SimulatorError(
                    f"the simulated customer stated facts absent from its scenario: "
                    f"{', '.join(sorted(unsupported))}"
                )
            # The next sample must differ: a cached or deterministic model would repeat.
            history = [*history, {"role": "system", "content": _CORRECTION}]
        raise AssertionError("unreachable")

    def usage(self) -> dict[str, float]:
        out = usage_numbers(self.accounting.totals().get(CallRole.USER))
        out["fidelity_flags"] = self.fidelity_flags
        return out

    def resolved_models(self) -> list[str]:
        return self.accounting.resolved_models(CallRole.USER)


_CORRECTION = (
    "Your last draft mentioned details that are not in your scenario. Write the message "
    "again using only facts from your scenario and from the conversation."
)


def litellm_user_resolver(name: str) -> UserFactory:
    model = name.removeprefix("litellm:")

    def factory(
        *,
        domain: Any,
        scenario: Any,
        persona: Any,
        params: Mapping[str, Any],
        seed: int,
    ) -> UserSimulator:
        resamples = int(params.get("fidelity_resamples", 2))
        spec = spec_from_params(model, params, drop=("fidelity_resamples", "solo"))
        return LiteLLMUser(
            spec,
            client=default_client(),
            trial_id=f"user-seed-{seed}",
            scenario=scenario,
            persona=persona,
            fidelity_resamples=resamples,
            # A solo run's customer has no tools: the agent holds them.
            tools=domain.tools.schemas(Actor.USER)
            if domain is not None and not params.get("solo")
            else (),
        )

    return factory
