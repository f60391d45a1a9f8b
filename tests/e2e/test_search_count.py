"""A search's count is capped (issue 15): a common word read as "N+ tickets" beyond the cap,
an exact count below it; at a desk's and at a phone's width."""

from __future__ import annotations

from typing import Any

import pytest

from backoffice.pagination import CappedCountPaginator
from identity.models import Operator
from tests.conftest import PASSWORD, make_service_token
from tests.e2e.conftest import read, screenshot, sign_in
from tickets.services import ticket_open_for_escalation

pytestmark = pytest.mark.django_db(transaction=True)


def _tickets_about(word: str, n: int) -> None:
    principal, _ = make_service_token(["escalations:create"])
    for i in range(n):
        ticket_open_for_escalation(
            actor=principal,
            customer_name=f"Customer {i}",
            category="customer_request",
            reason="Asked for a person.",
            summary=f"Question about a {word} number {i}",
            transcript=[{"role": "customer", "content": f"My {word} does not work."}],
            requested_action="Answer the question",
        )


def test_a_common_word_reads_as_the_cap_plus_and_a_rare_one_is_counted(
    person_page: Any, sam: Operator, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The cap is 1,000 in production; three is enough to show both sides of it here.
    monkeypatch.setattr(CappedCountPaginator, "cap", 3)
    _tickets_about("voucher", 5)
    _tickets_about("parcel", 2)
    page = sign_in(person_page, sam, PASSWORD)
    page.goto("/tickets/?q=voucher")
    read(page)
    scope = page.inner_text("[data-testid=search-scope]")
    assert scope.startswith("3+ tickets found for “voucher”"), scope
    # The count stops at the cap; the page still lists every match it holds.
    assert page.locator("text=Question about a voucher").count() == 5
    screenshot(page, "search-count-capped")
    page.goto("/tickets/?q=parcel")
    read(page)
    scope = page.inner_text("[data-testid=search-scope]")
    assert scope.startswith("2 tickets found for “parcel”"), scope
