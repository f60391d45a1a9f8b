"""τ²-bench's `retail` domain, loaded from TAU2_DATA_DIR/retail, with our own tools."""

from __future__ import annotations

from evals.engine.domain import Domain


def load() -> Domain:
    from evals.domains.tau2_common.data import read_policy
    from evals.domains.tau2_retail.tools import TOOLS, build_world, load_tasks

    return Domain(
        name="tau2_retail",
        policy=read_policy("retail"),
        tools=TOOLS,
        rules=lambda world, tool, args: [],
        build_world=build_world,
        load_tasks=load_tasks,
        description="τ²-bench retail: orders, returns, exchanges (MIT, Sierra).",
    )
