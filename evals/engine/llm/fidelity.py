"""Simulator fidelity checks (kept here for the LLM user; they live in
`evals.engine.fidelity`, which the orchestrator applies to every simulator)."""

from evals.engine.fidelity import (
    SIMULATOR_ERROR,
    SimulatorError,
    asks_for_confirmation,
    declined_gold_write,
    invented_facts,
    is_simulator_error,
    pending_gold_write,
    scenario_text,
    simulator_error_rate,
    unsupported_facts,
)

__all__ = [
    "SIMULATOR_ERROR",
    "SimulatorError",
    "asks_for_confirmation",
    "declined_gold_write",
    "invented_facts",
    "is_simulator_error",
    "pending_gold_write",
    "scenario_text",
    "simulator_error_rate",
    "unsupported_facts",
]
