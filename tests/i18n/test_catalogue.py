"""The zh_Hans catalogue: in step with the sources, fully translated, placeholders intact,
and compiled to a .mo that gettext reads the same as the .po, without GNU gettext."""

from __future__ import annotations

import gettext
import re
from pathlib import Path

import pytest
from django.conf import settings

from backoffice import i18n

PO = Path(settings.BASE_DIR) / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"
REFRESH = (
    "refresh with `make messages` (manage.py translations update), translate every new msgid "
    "in locale/zh_Hans/LC_MESSAGES/django.po, then `make translations-check`"
)
# What must survive translation unchanged: %-placeholders, brace fields and HTML tags.
PLACEHOLDER = re.compile(
    r"%\(\w+\)[-#0 +]*\d*(?:\.\d+)?[sdrfa]|%[-#0 +]*\d*(?:\.\d+)?[sdrf]|%%|<[^>]+>|\{[a-z_]+\}"
)


def _entries() -> list[i18n.Entry]:
    return [e for e in i18n.parse_po(PO.read_text(encoding="utf-8")) if e.msgid]


def test_the_po_holds_every_msgid_of_the_sources_translated_and_nothing_stale() -> None:
    wanted = i18n.source_msgids(Path(settings.BASE_DIR))
    assert len(wanted) > 500, "the extractor found almost nothing: it would pass on nothing"
    report = i18n.catalogue_report(PO, wanted)
    problems = [
        f"{label}: {msgid!r}"
        for label, keys in (
            ("missing from the .po", report.missing),
            ("untranslated or fuzzy", report.untranslated),
            ("stale (no longer in the sources)", report.stale),
        )
        for _context, msgid, _plural in keys
    ]
    assert not problems, REFRESH + ":\n" + "\n".join(problems)


def test_every_translation_keeps_the_placeholders_and_tags_of_its_msgid() -> None:
    wrong = []
    for entry in _entries():
        # Chinese has one plural form, which serves every count: it takes the plural's
        # placeholders ("The cell's only trial." / "The %(n)s trials ...").
        expected = sorted(PLACEHOLDER.findall(entry.msgid_plural or entry.msgid))
        for msgstr in entry.msgstr:
            if sorted(PLACEHOLDER.findall(msgstr)) != expected:
                wrong.append(f"{entry.msgid!r} -> {msgstr!r}")
    assert not wrong, "\n".join(wrong)


def test_translations_are_chinese_not_copies_of_the_english() -> None:
    han = re.compile(r"[\u4e00-\u9fff]")
    # Identifiers and product terms that read the same in Chinese.
    same = {"B", "A", "SLA", "python manage.py golive run --suite default"}
    copies = [e.msgid for e in _entries() if e.msgid not in same and not han.search(e.msgstr[0])]
    assert not copies, copies


def test_the_compiled_catalogue_reads_like_the_po(tmp_path: Path) -> None:
    mo = tmp_path / "django.mo"
    mo.write_bytes(i18n.compile_mo(i18n.parse_po(PO.read_text(encoding="utf-8"))))
    with mo.open("rb") as handle:
        catalogue = gettext.GNUTranslations(handle)
    for entry in _entries():
        if entry.msgid_plural:
            assert catalogue.ngettext(entry.msgid, entry.msgid_plural, 2) == entry.msgstr[0]
        elif entry.msgctxt:
            assert catalogue.pgettext(entry.msgctxt, entry.msgid) == entry.msgstr[0]
        else:
            assert catalogue.gettext(entry.msgid) == entry.msgstr[0]


SAMPLE_PO = r"""msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=1; plural=0;\n"

#: a.py
msgid "Inbox"
msgstr "收件箱"

msgid ""
"A long line "
"split in two"
msgstr ""
"一行"
"分两段"

msgid "%(n)s ticket"
msgid_plural "%(n)s tickets"
msgstr[0] "%(n)s 个工单"

msgctxt "verb"
msgid "Close"
msgstr "关闭"

#, fuzzy
msgid "Guessed"
msgstr "猜的"

msgid "Empty"
msgstr ""

#~ msgid "Gone"
#~ msgstr "没了"
"""


def test_it_compiles_plurals_contexts_and_continuations_and_skips_fuzzy_and_empty(
    tmp_path: Path,
) -> None:
    locale = tmp_path / "locale"
    po = locale / "zh_Hans" / "LC_MESSAGES" / "django.po"
    po.parent.mkdir(parents=True)
    po.write_text(SAMPLE_PO, encoding="utf-8")
    assert i18n.compile_catalogues(locale) == [po.with_suffix(".mo")]
    assert i18n.compile_catalogues(locale) == [], "an up-to-date .mo is not rewritten"
    with po.with_suffix(".mo").open("rb") as handle:
        catalogue = gettext.GNUTranslations(handle)
    assert catalogue.gettext("Inbox") == "收件箱"
    assert catalogue.gettext("A long line split in two") == "一行分两段"
    assert catalogue.ngettext("%(n)s ticket", "%(n)s tickets", 5) == "%(n)s 个工单"
    assert catalogue.pgettext("verb", "Close") == "关闭"
    assert catalogue.gettext("Guessed") == "Guessed"
    assert catalogue.gettext("Empty") == "Empty"
    assert catalogue.gettext("Gone") == "Gone"
    report = i18n.catalogue_report(po, {("", "Inbox", ""), ("", "New", "")})
    assert ("", "New", "") in report.missing
    assert ("", "Guessed", "") in report.untranslated
    assert ("", "Empty", "") in report.untranslated
    assert ("verb", "Close", "") in report.stale


def test_it_extracts_what_makemessages_extracts(tmp_path: Path) -> None:
    (tmp_path / "app" / "templates").mkdir(parents=True)
    (tmp_path / "app" / "views.py").write_text(
        "from django.utils.translation import gettext, ngettext, pgettext_lazy\n"
        'a = gettext("Saved.")\n'
        'b = ngettext("%(n)d ticket", "%(n)d tickets", 2)\n'
        'c = pgettext_lazy("verb", "Close")\n'
        "d = f\"{gettext('Hidden in an f-string')}\"\n",
        encoding="utf-8",
    )
    (tmp_path / "app" / "templates" / "page.html").write_text(
        '{% load i18n %}<h1>{% translate "Inbox" %}</h1>'
        "{% blocktranslate count n=rows|length %}{{ n }} row{% plural %}{{ n }} rows"
        "{% endblocktranslate %}{% blocktranslate trimmed with name=user.name %}\n"
        "  Hello {{ name }}, 100% sure\n{% endblocktranslate %}",
        encoding="utf-8",
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text('gettext("Ignored")\n', encoding="utf-8")
    assert i18n.source_msgids(tmp_path) == {
        ("", "Saved.", ""),
        ("", "%(n)d ticket", "%(n)d tickets"),
        ("verb", "Close", ""),
        ("", "Inbox", ""),
        ("", "%(n)s row", "%(n)s rows"),
        ("", "Hello %(name)s, 100%% sure", ""),
    }


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_money_keeps_its_currency_decimals_in_every_language(language: str) -> None:
    from django.utils import translation

    from payments_sandbox.templatetags.payments_tags import minor

    with translation.override(language):
        assert [minor(50000, "JPY"), minor(1234, "USD"), minor(1500, "KWD")] == [
            "50000 JPY",
            "12.34 USD",
            "1.500 KWD",
        ]
