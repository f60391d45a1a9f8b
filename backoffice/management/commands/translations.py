"""`manage.py translations update|compile|check`: the translation catalogues in locale/.

update   refresh locale/<lang>/LC_MESSAGES/django.po from the sources (Django's makemessages,
         which needs GNU gettext: apt install gettext), keeping every existing translation,
         then compile. New msgids arrive with an empty msgstr: translate them.
compile  compile every .po to .mo in pure Python (no gettext tools needed).
check    list msgids missing from the .po, untranslated (empty or fuzzy) or stale; exit 1
         if there is any. The same check runs in the test suite (tests/i18n).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from backoffice import i18n


class Command(BaseCommand):
    help = "Update, compile or check the translation catalogues (locale/)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["update", "compile", "check"])

    def handle(self, *args: Any, action: str, **options: Any) -> None:
        base_dir = Path(settings.BASE_DIR)
        locale_dir = base_dir / "locale"
        if action == "update":
            if shutil.which("xgettext") is None or shutil.which("msgmerge") is None:
                raise CommandError(
                    "Updating the .po files needs GNU gettext (apt install gettext, brew install "
                    "gettext). Compiling them does not: manage.py translations compile."
                )
            call_command(
                "makemessages",
                locale=list(i18n.LOCALES),
                ignore_patterns=list(i18n.IGNORE),
                no_obsolete=True,
                add_location="file",
                verbosity=options["verbosity"],
            )
        if action in {"update", "compile"}:
            written = i18n.compile_catalogues(locale_dir, force=action == "update")
            for mo in written:
                self.stdout.write(f"compiled {mo.relative_to(base_dir)}")
        if action in {"update", "check"}:
            self._check(base_dir, locale_dir, strict=action == "check")

    def _check(self, base_dir: Path, locale_dir: Path, *, strict: bool) -> None:
        wanted = i18n.source_msgids(base_dir)
        problems = 0
        for po in i18n.po_files(locale_dir):
            report = i18n.catalogue_report(po, wanted)
            name = po.relative_to(base_dir)
            for label, keys in (
                ("missing", report.missing),
                ("untranslated", report.untranslated),
                ("stale", report.stale),
            ):
                for _context, msgid, _plural in keys:
                    self.stdout.write(f"{name}: {label}: {msgid!r}")
                problems += len(keys)
            self.stdout.write(f"{name}: {len(wanted)} msgids in the sources")
        if problems and strict:
            raise CommandError(f"{problems} catalogue problem(s); see above.")
