"""The deterministic rules of τ² mock's policy (`tau2_common/data/mock/policy.md`), checked by
the guard before every WRITE: a task has a title, and only existing users get tasks. The
policy's other rules hold by construction — a status other than "pending" or "completed" is
not a valid argument, and no tool deletes a task (the agent transfers such a request) — and
it asks for no confirmation before a write."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evals.engine.messages import Violation
from evals.engine.world import World


def check_rules(world: World, tool: str, args: Mapping[str, Any]) -> list[Violation]:
    if tool != "create_task":
        return []
    found = []
    if not str(args.get("title", "")).strip():
        found.append(
            Violation("missing_title", "Each task must have a title: ask the user for one.")
        )
    user_id = str(args.get("user_id", ""))
    if user_id not in world.tables["users"]:
        found.append(
            Violation(
                "unknown_user",
                f"There is no user {user_id!r}: only existing users can create tasks "
                "(get_users lists them).",
            )
        )
    return found
