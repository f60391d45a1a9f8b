"""Exceptions the engine distinguishes when classifying how a trial ended."""

from __future__ import annotations


class EngineError(Exception):
    """A misuse of the engine itself (bad spec, unknown domain or model name)."""


class InfrastructureError(Exception):
    """A failure outside the system under test: provider outage, rate limit after the
    retries, network, timeouts of the model client. The orchestrator ends the trial with
    `infrastructure_error`, and metrics exclude such trials from n and c (they are counted
    and reported separately). The LLM client (`evals.engine.llm`) raises it, or a subclass;
    any other exception raised by an agent is the agent's own failure (`agent_error`)."""


class SimulatorError(InfrastructureError):
    """The user simulator broke its scenario: it stated facts absent from it (an invented id,
    amount or name), said nothing, or stopped before the agent's last write. The simulator is
    part of the measuring instrument, so such a trial says nothing about the agent: it ends
    with `simulator_error`, is excluded from pass^k like an infrastructure error, counted
    apart (`Report.simulator_errors`, `simulator_error_rate`) and re-run by resume. A subclass
    of `InfrastructureError`, so code that only knows that class still never blames the
    agent."""


class ToolError(Exception):
    """Raised inside a tool for a domain error ("order #W1 is not pending"). The message is
    returned to the caller as the tool result, written for the model; the trial goes on."""
