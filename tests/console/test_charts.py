"""The console's server-drawn charts: geometry, the words that stand in for them, and the
home page that shows them (SVG with <title> and <desc>, no inline style)."""

from __future__ import annotations

import re
from datetime import date, timedelta

from corridor.console import charts
from tests.console.conftest import parked
from tests.console.helpers import console_browser

DAYS = [date(2026, 11, 1) + timedelta(days=index) for index in range(30)]


def test_a_line_chart_spans_the_plot_and_says_what_it_shows():
    values = [index * 1_000 for index in range(30)]
    chart = charts.line_chart(
        key="k", title="USD balance", currency="USD", days=DAYS, values=values
    )
    points = [tuple(map(float, point.split(","))) for point in chart.line.split()]
    assert len(points) == 30
    assert points[0] == (charts.margin_left, charts.chart_height - charts.margin_bottom)
    assert points[-1] == (
        charts.chart_width - charts.margin_right,
        charts.margin_top,
    )  # the highest value on top
    assert [x for x, _ in points] == sorted(x for x, _ in points)
    assert chart.summary == (
        "USD balance: 290.00 USD on Nov 30, from 0.00 USD on Nov 1; "
        "lowest 0.00 USD, highest 290.00 USD."
    )
    assert [tick.text for tick in chart.y_ticks] == ["0", "145", "290"]
    assert [tick.text for tick in chart.x_ticks] == [
        "Nov 1",
        "Nov 8",
        "Nov 15",
        "Nov 22",
        "Nov 30",
    ]
    assert chart.table_rows[-1] == ("2026-11-30", "290.00 USD")


def test_a_flat_or_empty_series_still_draws():
    chart = charts.line_chart(key="k", title="t", currency="EUR", days=DAYS, values=[0] * 30)
    assert chart.line and "nan" not in chart.line
    bars = charts.bar_chart(
        key="b",
        title="t",
        days=DAYS,
        values=[0] * 30,
        text=str,
        axis_text=str,
        summary="s",
        table_head=(),
        table_rows=(),
    )
    assert all(bar.height == 0 for bar in bars.bars)


def test_bars_are_as_tall_as_their_values():
    values = [0] * 28 + [5, 10]
    chart = charts.bar_chart(
        key="b",
        title="t",
        days=DAYS,
        values=values,
        text=lambda v: f"{v} transfers",
        axis_text=str,
        summary="s",
        table_head=(),
        table_rows=(),
    )
    plot = charts.chart_height - charts.margin_bottom - charts.margin_top
    assert chart.bars[-1].height == plot
    assert chart.bars[-2].height == plot / 2
    assert chart.bars[-1].label == "Nov 30: 10 transfers"
    assert (
        chart.bars[0].x > charts.margin_left
        and chart.bars[-1].x + chart.bars[-1].width < charts.chart_width - charts.margin_right
    )


def test_compact_labels_and_meter_tones():
    assert charts.compact(123_456_789, "USD") == "1.2M"
    assert charts.compact(1_250_000, "USD") == "12.5k"
    assert charts.compact(54_000_000, "USDC") == "54"
    assert charts.compact(-50, "USD") == "-0.5"
    assert charts.full(123_456_789, "USD") == "1,234,567.89 USD"
    assert charts.meter("u", 99, 1, window="w").tone == "ok"
    assert charts.meter("u", 9, 1, window="w").tone == "warn"
    assert charts.meter("u", 1, 1, window="w").percent == 50
    assert charts.meter("u", 0, 0, window="w").percent is None


async def test_home_draws_balances_volume_and_webhook_health(app, owner):
    await parked(owner)
    async with console_browser(app, owner.tenant) as browser:
        home = await browser.get("/console")
    assert home.status_code == 200
    html = home.text
    assert 'id="balance-usd-title">USD balance, last 30 days</title>' in html
    assert re.search(
        r'<desc id="balance-usd-desc">USD balance, last 30 days: 1,000,000.00 USD on ', html
    )
    assert 'id="volume-count-title">Transfers per day, last 30 days</title>' in html
    assert "Webhooks health" in html and "No webhook endpoints." in html
    assert html.count('role="img"') >= 2
    assert "Show the numbers" in html
    assert " style=" not in html and "<script>" not in html


def test_an_axis_of_zeros_says_zero_once():
    days = [date(2026, 11, 1) + timedelta(days=index) for index in range(30)]
    chart = charts.line_chart(
        key="usdc", title="USDC balance", currency="USDC", days=days, values=[0] * 30
    )
    assert [tick.text for tick in chart.y_ticks] == ["0"]
