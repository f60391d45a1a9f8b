"""The report as one self-contained HTML file (`/evals/N/report.html`, `golive show --format
html`) and the self-test page with its misses linked, and the self-test in the run page's
verdict panel."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.urls import reverse
from django.utils import translation

from evals import services
from evals.models import EvalRun, EvalSelftest, TrialResult
from evals.report_file import report_html
from tests.conftest import verified_client
from tests.evals.conftest import golive, store_selftest

pytestmark = pytest.mark.django_db

DOMAINS = [{"name": "retail", "split": "smoke"}, {"name": "membership", "split": "smoke"}]


def _run(actor, suite) -> EvalRun:
    run = services.eval_run_create(actor=actor, suite=suite)
    return services.eval_run_execute(actor=actor, run_id=run.pk)


@pytest.fixture
def failing_run(rita, make_suite) -> EvalRun:
    return _run(
        rita,
        make_suite(
            agent={"model": "sandbox/fault:skip_confirmation"},
            guard_mode="observe",
            domains=DOMAINS,
            gate={
                "pass_hat_k_lower": 0.5,
                "pass_hat_1": 0.8,
                "max_policy_violations": 0,
                "max_infrastructure_error_rate": 0.0,
                "persona_floors": {"impatient": 0.9},
            },
        ),
    )


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.styles.append(data)


def _loads_nothing(html: str) -> None:
    """No element a browser would fetch or run, no attribute that names a resource, no
    stylesheet that loads one."""
    parser = _Elements()
    parser.feed(html)
    tags = {tag for tag, _ in parser.tags}
    assert not tags & {"script", "link", "img", "iframe", "object", "embed", "base", "svg"}
    for tag, attrs in parser.tags:
        assert not set(attrs) & {"src", "href", "srcset", "action", "background"}, tag
        assert "url(" not in (attrs.get("style") or ""), tag
    css = " ".join(parser.styles).lower()
    assert parser.styles and "url(" not in css and "@import" not in css


def test_the_file_holds_the_verdict_every_domain_the_cells_and_the_selftest(
    rita, failing_run
) -> None:
    response = verified_client(rita).get(reverse("evals:run_report_file", args=[failing_run.pk]))

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert f'filename="golive-run-{failing_run.pk}.html"' in response["Content-Disposition"]
    html = response.content.decode()
    _loads_nothing(html)
    text = _text(html)
    assert failing_run.verdict == "fail" and 'data-verdict="fail"' in html
    for check in failing_run.verdict_reasons:
        assert check["check"] in html
    report = failing_run.summary["report"]
    for k in report["pass_hat"]:
        assert f"<th>pass^{k}</th>" in html
    for domain, estimates in report["by_domain"].items():
        assert f'data-domain="{domain}"' in html
        for e in estimates.values():
            assert f"{e['value']:.3f} [{e['low']:.3f}, {e['high']:.3f}]" in text
    for key in failing_run.summary["heatmap"]["cells"]:
        assert f'data-cell="{key}"' in html
    assert "Floor 0.900" in text  # the persona floor, on every impatient cell
    for name, count in report["failures"].items():
        assert f"{name} {count}" in text
    for name, count in report["terminations"].items():
        assert f"{name} {count}" in text
    selftest = EvalSelftest.objects.latest("id")
    assert f"#{selftest.pk}" in text and "do_nothing" in text
    assert "Weakest cells first" in text
    # The run page offers it.
    page = verified_client(rita).get(reverse("evals:run_detail", args=[failing_run.pk]))
    assert reverse("evals:run_report_file", args=[failing_run.pk]) in page.content.decode()


def test_the_file_escapes_what_an_operator_typed(rita, failing_run) -> None:
    # A suite name or a stored check message can hold markup: it must not become a request.
    EvalRun.objects.filter(pk=failing_run.pk).update(
        suite_name='<img src="https://evil.test/x">',
        verdict_reasons=[
            {
                "check": "x",
                "ok": False,
                "observed": 0.0,
                "threshold": 1.0,
                "message": '<script src="https://evil.test/a.js"></script>',
            }
        ],
    )
    html = report_html(EvalRun.objects.get(pk=failing_run.pk))
    _loads_nothing(html)
    assert "&lt;img src=" in html and "&lt;script" in html


def test_the_file_is_translated_and_golive_show_writes_it(rita, failing_run) -> None:
    with translation.override("zh-hans"):
        html = report_html(failing_run)
    assert '<html lang="zh-hans">' in html
    assert "未通过" in html and "结论" in html

    code, out, _ = golive("show", str(failing_run.pk), "--format", "html", "--language", "zh-hans")
    assert code == 0
    assert out.lstrip().startswith("<!DOCTYPE html>") and "未通过" in out
    _loads_nothing(out)


def test_only_who_sees_runs_downloads_it(alice, failing_run) -> None:
    url = reverse("evals:run_report_file", args=[failing_run.pk])
    assert verified_client(alice).get(url).status_code == 404


def _with_misses(run: EvalRun) -> EvalSelftest:
    """A self-test that let `skip_confirmation` through on one retail task of the run."""
    EvalSelftest.objects.all().delete()
    selftest = store_selftest({("retail", "skip_confirmation"): (1, 2)})
    task = TrialResult.objects.filter(run=run, domain="retail").values_list("task_id", flat=True)[0]
    results = selftest.results
    results["retail"]["skip_confirmation"]["missed"] = [{"task": task, "failure": "none"}]
    EvalSelftest.objects.filter(pk=selftest.pk).update(results=results)
    return selftest


def test_the_selftest_page_shows_caught_over_applicable_and_links_each_miss(
    rita, audrey, alice, failing_run
) -> None:
    selftest = _with_misses(failing_run)
    stored = EvalSelftest.objects.get(pk=selftest.pk)
    miss = stored.results["retail"]["skip_confirmation"]["missed"][0]
    url = reverse("evals:selftest_detail", args=[selftest.pk])

    html = verified_client(audrey).get(f"{url}?run={failing_run.pk}").content.decode()

    text = _text(html)
    assert 'data-cell="retail|skip_confirmation"' in html
    cell = html[html.index('data-cell="retail|skip_confirmation"') :]
    assert "1 / 2" in _text(cell[: cell.index("</td>")]) and "check-bad" in cell[:60]
    assert "falls short" in text
    trials = reverse("evals:run_trial_list", args=[failing_run.pk])
    assert f'href="{trials}?domain=retail&amp;task={miss["task"]}"' in html
    assert f'data-miss="retail|skip_confirmation|{miss["task"]}"' in html
    # Without a run, the miss is named but not linked; another role gets no page.
    plain = verified_client(audrey).get(url).content.decode()
    assert miss["task"] in plain and f"{trials}?domain=retail" not in plain
    assert verified_client(alice).get(url).status_code == 404
    assert verified_client(audrey).get(f"{url}?run=999999").status_code == 404
    assert (
        verified_client(audrey).get(reverse("evals:selftest_detail", args=[999999])).status_code
        == 404
    )


def test_the_verdict_panel_shows_the_selftest_the_gate_read(rita, make_suite) -> None:
    run = _run(rita, make_suite(domains=DOMAINS))
    selftest = EvalSelftest.objects.latest("id")
    html = verified_client(rita).get(reverse("evals:run_detail", args=[run.pk])).content.decode()

    panel = html[html.index('data-testid="selftest"') :]
    panel = panel[: panel.index('data-testid="passk-chart"')]
    assert 'data-testid="sensitivity-result"' in panel and "badge ok" in panel
    link = f"{reverse('evals:selftest_detail', args=[selftest.pk])}?run={run.pk}"
    assert f'href="{link}"' in panel
    assert 'data-domain="retail"' in panel and 'data-domain="membership"' in panel
    # Then the oracle is shown to miss a fault: a later self-test is offered, the verdict
    # stays as judged, and the run page still names the one it was judged with.
    later = _with_misses(run)
    html = verified_client(rita).get(reverse("evals:run_detail", args=[run.pk])).content.decode()
    assert 'data-testid="selftest-newest"' in html and f"#{later.pk}" in html
    assert "no longer stored" in html and run.verdict == "pass"


def test_the_selftest_page_and_panel_read_in_chinese(rita, failing_run) -> None:
    selftest = _with_misses(failing_run)
    client = verified_client(rita)
    url = reverse("evals:selftest_detail", args=[selftest.pk])
    html = client.get(f"{url}?run={failing_run.pk}", HTTP_ACCEPT_LANGUAGE="zh-hans").content
    text = html.decode()
    assert "每个故障的发现 / 适用" in text and "未达标" in text and "1 次漏检" in text
    page = client.get(
        reverse("evals:run_detail", args=[failing_run.pk]), HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert "将报告下载为单个 HTML 文件" in page and "完全发现的故障" in page
