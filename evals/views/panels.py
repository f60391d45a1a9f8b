"""The home-page panel: the latest go-live verdict, for those who may see reports."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.translation import gettext

from backoffice.dashboard import Panel
from evals import access, selectors


def golive_panel(user: Any) -> Panel | None:
    if not access.can_view_runs(user):
        return None
    runs = list(selectors.run_list()[:5])
    latest = runs[0] if runs else None
    figures: list[tuple[str, Any]] = [
        (
            gettext("Latest verdict"),
            latest.get_verdict_display() if latest and latest.verdict else "—",
        )
    ]
    return Panel(
        title=gettext("Go-live"),
        url=reverse("evals:run_list"),
        figures=figures,
        lines=[
            (f"#{r.pk} {r.suite_name}", f"{r.get_status_display()} · {r.get_verdict_display()}")
            for r in runs
        ],
    )
