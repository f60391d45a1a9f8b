"""A domain's policy is rendered from markdown, and whatever HTML or script it carries is
shown as text: a team's own domain is not trusted to write into the report pages."""

from __future__ import annotations

from evals.views.markup import render_markdown


def test_it_renders_headings_lists_and_emphasis() -> None:
    html = render_markdown("# Policy\n\n- cancel a **pending** order\n- `code`\n")
    assert "<h1>Policy</h1>" in html
    assert "<li>cancel a <strong>pending</strong> order</li>" in html
    assert "<code>code</code>" in html


def test_it_shows_raw_html_and_scripts_as_text() -> None:
    html = render_markdown('<script>alert(1)</script>\n\n<img src=x onerror="alert(2)">')
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;" in html


def test_it_never_makes_a_javascript_link() -> None:
    html = render_markdown("[click](javascript:alert(1)) and [ok](https://example.com)")
    assert 'href="javascript' not in html.lower()
    assert 'href="https://example.com"' in html
