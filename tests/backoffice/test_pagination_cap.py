"""CappedCountPaginator: a search's count stops at the cap, without sorting every match."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from backoffice.pagination import CappedCountPaginator
from identity.models import Operator

pytestmark = pytest.mark.django_db


class Capped(CappedCountPaginator):
    cap = 3


def test_below_the_cap_the_count_is_exact(make_operator) -> None:
    make_operator("a")
    events = Operator.objects.order_by("-id")
    total = events.count()
    assert 0 < total <= 3
    paginator = Capped(events, 2)
    assert paginator.count == total and not paginator.count_capped
    assert paginator.count_shown == total


def test_beyond_the_cap_it_counts_cap_plus_one_unordered_and_says_so(make_operator) -> None:
    for name in "abcde":
        make_operator(name)
    events = Operator.objects.order_by("-id")
    assert events.count() > 4
    paginator = Capped(events, 2)
    with CaptureQueriesContext(connection) as queries:
        assert paginator.count == 4
    sql = queries.captured_queries[0]["sql"].upper()
    assert "LIMIT 4" in sql and "ORDER BY" not in sql
    assert paginator.count_capped and paginator.count_shown == 3
    assert paginator.num_pages == 2  # pages run up to the cap
    # The last page is a full page, not cut at the capped count.
    assert len(Capped(events, 10).page(1).object_list) == events.count()
