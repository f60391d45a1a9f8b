from functools import cached_property
from typing import Any

from django.core.paginator import Page, Paginator
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response

# A search for a common word matches a large share of 100,000 tickets; counting every match
# cost more than finding the first page (bench/inbox.py). Like the search pages people know,
# the count stops here and reads "1,000+".
SEARCH_COUNT_CAP = 1000


class StandardPagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


class CappedCountPaginator(Paginator):
    """Counts at most `cap` + 1 rows: SELECT COUNT(*) over the unordered query limited to
    cap + 1 (the order is dropped: which rows make the count does not matter, and sorting
    every match is the cost this avoids). Pages run up to the cap."""

    cap = SEARCH_COUNT_CAP

    @cached_property
    def count(self) -> int:
        object_list: Any = self.object_list
        if hasattr(object_list, "order_by"):
            return int(object_list.order_by()[: self.cap + 1].count())
        return min(len(object_list), self.cap + 1)

    @property
    def count_capped(self) -> bool:
        return self.count > self.cap

    def page(self, number: Any) -> Any:
        """Django cuts the last page at `count`; past the cap that count is not the real
        one, so the last page is a full page (whatever the query still holds)."""
        number = self.validate_number(number)
        if not self.count_capped:
            return super().page(number)
        bottom = (number - 1) * self.per_page
        return Page(self.object_list[bottom : bottom + self.per_page], number, self)

    @property
    def count_shown(self) -> int:
        """The count as shown: the cap when there are more (read as "1,000+")."""
        return min(self.count, self.cap)


class CappedSearchPagination(StandardPagination):
    """The API's pages of a search: `count` stops at the cap, and `count_capped` says
    whether there are more matches than that."""

    django_paginator_class = CappedCountPaginator

    def get_paginated_response(self, data: Any) -> Response:
        assert self.page is not None
        paginator = self.page.paginator
        assert isinstance(paginator, CappedCountPaginator)
        return Response(
            {
                "count": paginator.count_shown,
                "count_capped": paginator.count_capped,
                "next": self.get_next_link(),
                "previous": self.get_previous_link(),
                "results": data,
            }
        )
