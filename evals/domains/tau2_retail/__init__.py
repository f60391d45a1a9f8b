"""τ²-bench's `retail` domain, loaded from TAU2_DATA_DIR/retail, with our own tools."""

from __future__ import annotations

from evals.engine.domain import Domain


def load() -> Domain:
    from evals.domains.tau2_common.data import read_policy
    from evals.domains.tau2_common.published import published_reward
    from evals.domains.tau2_retail.rules import check_rules
    from evals.domains.tau2_retail.tasks import load_tasks
    from evals.domains.tau2_retail.tools import TOOLS, build_world

    return Domain(
        name="tau2_retail",
        policy=read_policy("retail"),
        tools=TOOLS,
        rules=check_rules,
        build_world=build_world,
        load_tasks=load_tasks,
        description="τ²-bench retail: orders, returns, exchanges (MIT, Sierra).",
        published_reward=published_reward("retail"),
    )
