"""Every literal a person reads in the apps' Python goes through gettext."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.utils.functional import Promise

from backoffice.context import NAV
from tests.i18n.python_lint import python_files, scan_python


def _scan(tmp_path: Path, source: str) -> list[tuple[int, str]]:
    path = tmp_path / "probe.py"
    path.write_text(source, encoding="utf-8")
    return [(f.line, f.text) for f in scan_python(path)]


def test_every_person_read_literal_in_the_apps_is_translatable() -> None:
    files = python_files(Path(settings.BASE_DIR))
    assert len(files) > 50, "the scan found no modules: it would pass on nothing"
    findings = [str(f) for path in files for f in scan_python(path)]
    assert not findings, "untranslated strings (wrap them in gettext):\n" + "\n".join(findings)


def test_the_header_navigation_labels_are_lazy_translations() -> None:
    assert all(isinstance(label, Promise) for label, _, _ in NAV)


def test_it_reports_flash_messages_errors_labels_and_choices(tmp_path: Path) -> None:
    source = (
        "from django.contrib import messages\n"
        "from django.db import models\n"
        "from backoffice.errors import Conflict\n"
        "class Status(models.TextChoices):\n"
        '    OPEN = "open", "Open"\n'
        "def view(request, ticket):\n"
        '    messages.success(request, f"Ticket #{ticket.pk} saved.")\n'
        '    raise Conflict("Stale.", fields={"version": ["Reload first."]})\n'
        'name = models.CharField(max_length=5, help_text="Shown on the card")\n'
        'panel = Panel(title="Inbox", url="/inbox/", figures=[("Mine", 3)])\n'
        "head = f\"{gettext('domain'):<14}\"\n"
    )
    assert _scan(tmp_path, source) == [
        (5, "Open"),
        (7, "Ticket #{…} saved."),
        (8, "Stale."),
        (8, "Reload first."),
        (9, "Shown on the card"),
        (10, "Inbox"),
        (10, "Mine"),
        (11, "gettext in an f-string"),
    ]


def test_it_accepts_gettext_codes_keys_and_urls(tmp_path: Path) -> None:
    source = (
        "from django.contrib import messages\n"
        "from django.utils.translation import gettext, gettext_lazy\n"
        "from backoffice.errors import Conflict\n"
        "class Status(models.TextChoices):\n"
        '    OPEN = "open", gettext_lazy("Open")\n'
        "def view(request, ticket, counts):\n"
        '    messages.success(request, gettext("Ticket #%(pk)s saved.") % {"pk": ticket.pk})\n'
        '    raise Conflict(gettext("Stale."), code="stale_version", fields={"version": []})\n'
        'panel = Panel(title=gettext_lazy("Inbox"), url=reverse("tickets:inbox"),'
        ' figures=[(gettext_lazy("Mine"), counts["mine"])])\n'
    )
    assert _scan(tmp_path, source) == []
