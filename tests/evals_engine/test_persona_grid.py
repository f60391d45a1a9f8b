"""Personas compose as in the emotion studies, and `grid:N` samples the grid from the seed."""

from __future__ import annotations

import dataclasses

import pytest

from evals.domains import get_domain
from evals.engine.errors import EngineError
from evals.engine.persona import Emotion, Language, Level, expand_personas, grid, parse_persona
from evals.engine.runner import RunSpec, plan


def test_the_grid_composes_emotion_politeness_urgency_trust_and_language():
    conditions = grid()
    assert len(conditions) == len(set(conditions)) == 11 * 2 * 2 * 2 * 2
    personas = [parse_persona(c) for c in conditions]
    assert {p.language for p in personas} == set(Language)
    assert {p.emotion for p in personas} == set(Emotion)
    assert {p.trust for p in personas} == {Level.LOW, Level.HIGH}


def test_grid_n_draws_the_same_n_distinct_conditions_for_a_seed_and_others_for_another():
    first = expand_personas(["grid:12"], 7)
    assert len(first) == 12 and set(first) <= set(grid())
    assert expand_personas(["grid:12"], 7) == first
    assert expand_personas(["grid:12"], 8) != first
    assert expand_personas(["baseline", "grid:3"], 7)[0] == "baseline"


@pytest.mark.parametrize("spec", ["grid:0", "grid:x", "grid:177"])
def test_a_grid_outside_its_size_is_refused(spec):
    with pytest.raises(EngineError, match="grid:N takes a whole number from 1 to 176"):
        expand_personas([spec], 0)


def test_language_is_a_persona_dimension_that_the_llm_customer_is_told():
    persona = parse_persona("skeptical,language=zh-Hans")
    assert persona.language is Language.ZH_HANS and persona.skepticism is Level.HIGH
    assert "Simplified Chinese" in persona.describe()
    with pytest.raises(EngineError, match="Unknown language"):
        parse_persona("language=fr")


def test_plan_expands_the_grid_and_plans_chinese_customers_of_every_offline_domain():
    spec = RunSpec(domains=("tau2_mock",), personas=("grid:4",), seed=3, user="gpt-4o-mini")
    units = plan(spec)
    assert {u.persona for u in units} == set(expand_personas(["grid:4"], 3))
    for domain in ("retail", "membership", "tau2_mock"):
        chinese = RunSpec(domains=(domain,), personas=("baseline,language=zh-Hans",))
        assert plan(chinese)


def test_plan_refuses_the_offline_customer_where_a_domain_has_none():
    # τ² retail's scenarios are free text for an LLM customer: no offline one, in any language.
    for persona in ("baseline", "baseline,language=zh-Hans"):
        spec = RunSpec(domains=("tau2_retail",), personas=(persona,))
        with pytest.raises(EngineError, match="tau2_retail has no offline customer"):
            plan(spec)
    assert plan(RunSpec(domains=("tau2_retail",), user="gpt-4o-mini"))


def test_plan_refuses_a_language_the_offline_customer_does_not_write(monkeypatch):
    mock = get_domain("tau2_mock")
    monkeypatch.setattr(
        "evals.engine.runner.execute.get_domain",
        lambda name: dataclasses.replace(mock, scripted_languages=("en",)),
    )
    chinese = RunSpec(domains=("tau2_mock",), personas=("baseline,language=zh-Hans",))
    with pytest.raises(EngineError, match="offline customer of tau2_mock does not write zh-Hans"):
        plan(chinese)
