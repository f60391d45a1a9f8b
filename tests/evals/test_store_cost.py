"""A trial's cost as the backoffice stores it: the engine's LLM adapters report
`<role>.cost_usd`, which was read as `<role>.cost` and stored as zero."""

from __future__ import annotations

from evals.services.store import micros


def test_it_reads_the_cost_the_llm_adapters_write() -> None:
    usage = {"agent.cost_usd": 0.192, "agent.tokens_in": 150.0, "user.cost_usd": 0.0}
    assert micros(usage, "agent") == 192_000
    assert micros(usage, "user") == 0


def test_a_participant_reporting_cost_under_the_old_key_still_counts() -> None:
    assert micros({"user.cost": 0.5}, "user") == 500_000
    assert micros({}, "agent") == 0
