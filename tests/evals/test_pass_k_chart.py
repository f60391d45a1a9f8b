"""The run page's pass^k chart: where values land, which series get a band and a link, and
that labels are escaped (they come from suite files)."""

from __future__ import annotations

import re

from evals import charts


def _estimate(value: float, low: float, high: float) -> dict[str, float]:
    return {"value": value, "low": low, "high": high}


def test_each_series_is_one_group_with_band_line_points_and_legend() -> None:
    svg = str(
        charts.pass_k_chart(
            [
                (
                    "all",
                    {
                        "1": _estimate(0.8, 0.7, 0.9),
                        "2": _estimate(0.6, 0.45, 0.72),
                        "4": _estimate(0.4, 0.3, 0.5),
                    },
                ),
                ("calm <b>", {"1": _estimate(0.95, 0.9, 0.99)}),
                ("no trials", {}),
            ],
            links={"all": "/evals/runs/1/trials/"},
        )
    )
    # k from 1 to 4 spans the plot (x 48..490); the lowest low (0.3) sets the floor.
    assert [m for m in re.findall(r'x="([\d.]+)"[^>]*>k=(\d)', svg)] == [
        ("48.0", "1"),
        ("195.3", "2"),
        ("490.0", "4"),
    ]
    assert "pass^k (y axis from 0.3)" in svg
    # A series with one point has no band; the empty one is not drawn at all.
    assert svg.count("<polygon") == 1
    assert svg.count("<g data-series=") == 2 and "no trials" not in svg
    # Only the linked series is wrapped in a link, named for screen readers.
    assert re.search(
        r'<a href="/evals/runs/1/trials/" class="chart-link" aria-label="The trials behind '
        r'all"><g data-series="all">',
        svg,
    )
    assert "<b>" not in svg and "calm &lt;b&gt;" in svg


def test_a_single_k_sits_in_the_middle_and_a_perfect_run_keeps_a_visible_scale() -> None:
    svg = str(charts.pass_k_chart([("one", {"1": _estimate(1.0, 1.0, 1.0)})]))
    # One k: the middle of the 442-wide plot; all at 1.0: the axis starts at 0.9, not 1.0.
    assert 'cx="269.0"' in svg
    assert "pass^k (y axis from 0.9)" in svg


def test_nothing_to_chart_says_so() -> None:
    assert "No pass^k to chart yet." in str(charts.pass_k_chart([]))
