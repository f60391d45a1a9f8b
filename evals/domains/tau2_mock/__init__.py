"""τ²-bench's `mock` domain (tasks for users), loaded from TAU2_DATA_DIR/mock."""

from __future__ import annotations

from evals.engine.domain import Domain


def load() -> Domain:
    from evals.domains.tau2_common.data import read_policy
    from evals.domains.tau2_common.published import published_reward
    from evals.domains.tau2_mock.domain import ASSERTIONS, TOOLS, build_world, load_tasks
    from evals.domains.tau2_mock.rules import check_rules
    from evals.domains.tau2_mock.scripted import MockReferenceAgent, MockScriptedUser

    return Domain(
        name="tau2_mock",
        policy=read_policy("mock"),
        tools=TOOLS,
        rules=check_rules,
        build_world=build_world,
        load_tasks=load_tasks,
        reference_agent=MockReferenceAgent.factory,
        scripted_user=MockScriptedUser.factory,
        assertions=ASSERTIONS,
        published_reward=published_reward("mock"),
        description="τ²-bench mock domain: create and complete tasks for users, dual control "
        "(the customer's own notification inbox and tools) (MIT, Sierra).",
        scripted_languages=("en", "zh-Hans"),
    )
