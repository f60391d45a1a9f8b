"""Every text a person reads in a template goes through a translation tag."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from tests.i18n.template_lint import scan_template, template_files


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "templates" / "probe.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_every_template_text_is_translatable() -> None:
    templates = template_files(Path(settings.BASE_DIR))
    assert len(templates) > 30, "the scan found no templates: it would pass on nothing"
    findings = [str(f) for path in templates for f in scan_template(path)]
    assert not findings, "untranslated template text (wrap it in {% translate %}):\n" + "\n".join(
        findings
    )


def test_it_reports_plain_text_with_its_line(tmp_path: Path) -> None:
    path = _write(
        tmp_path, '{% load i18n %}\n<h1>{% translate "Inbox" %}</h1>\n<p>Assign to me</p>\n'
    )
    assert [(f.line, f.text) for f in scan_template(path)] == [(3, "Assign to me")]


def test_it_reports_text_around_variables_and_in_person_read_attributes(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        '<p>{{ n }} tickets waiting</p>\n<input type="text" placeholder="Search tickets">\n'
        '<a title="Open {{ ticket.pk }}" href="{{ url }}">{{ ticket.subject }}</a>\n'
        '<input type="submit" value="Save">\n',
    )
    assert [f.line for f in scan_template(path)] == [1, 2, 3, 4]


def test_it_reports_a_literal_filter_argument_but_not_a_translated_one(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        '<td>{{ op.last_login|date:"Y-m-d H:i"|default:"never" }}</td>\n'
        '<td>{{ op.last_login|default:_("never") }}{{ lang|default:"en" }}</td>\n',
    )
    assert [(f.line, f.text) for f in scan_template(path)] == [(1, "never"), (2, "en")]


def test_it_reports_a_block_default_left_in_english(tmp_path: Path) -> None:
    path = _write(
        tmp_path, "{% block title %}Home{% endblock %}{% block main_class %}page wide{% endblock %}"
    )
    assert [f.text for f in scan_template(path)] == ["Home"]


def test_it_accepts_translated_text_data_and_technical_tokens(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "{% load i18n %}{# a comment in English #}\n"
        '<h1>{% translate "Go-live runs" %}</h1>\n'
        "<p>{% blocktranslate count n=runs|length %}{{ n }} run{% plural %}{{ n }} runs"
        "{% endblocktranslate %}</p>\n"
        '<td class="mono">{{ run.suite_hash }}</td><td>pass^k · #{{ run.pk }} · 2FA</td>\n'
        "{% comment %}Nobody reads this{% endcomment %}\n"
        "<script>const label = 'not prose';</script><code>python manage.py golive</code>\n"
        '<input type="hidden" name="next" value="Not person-read">\n',
    )
    assert scan_template(path) == []
