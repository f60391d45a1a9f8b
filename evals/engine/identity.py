"""The identity step several domains share: verifying the customer by the email address of
their account (a READ tool that records who is verified in the conversation's session).

The docstring stays the domain's: it is what the model reads, worded for that domain."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evals.engine.errors import ToolError
from evals.engine.tools import Tool, ToolKind, tool
from evals.engine.world import World


def email_lookup(
    doc: str,
    *,
    table: str = "customers",
    who: str = "customer",
    answer: Callable[[Any, Any], dict[str, Any]] | None = None,
) -> Tool:
    """The tool `find_<who>_by_email(email)`: the record of `table` whose email is the one
    given (trimmed, any case) becomes the session's verified customer, and the answer is
    `{"<who>_id": id}` (or `answer(world, record)`); no such record is a ToolError."""

    def find(world: World, email: str) -> dict[str, Any]:
        wanted = email.strip().lower()
        for record in world.tables[table].values():
            if record.email == wanted:
                world.session.verified_customer_id = record.id
                return answer(world, record) if answer else {f"{who}_id": record.id}
        raise ToolError(f"No {who} with email {email!r}.")

    find.__doc__ = doc
    return tool(kind=ToolKind.READ, name=f"find_{who}_by_email")(find)
