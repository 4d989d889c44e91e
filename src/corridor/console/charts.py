"""Charts drawn on the server as SVG (no chart script): the geometry of a line chart, a bar
chart and a row of horizontal percentage bars, computed here and drawn by
`templates/parts/charts.html`. Each chart carries its title, a sentence saying what it
shows (the SVG's <desc> and the text under it) and the rows of the table that stands in
for it for people who would rather read, or cannot see it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from corridor.kit.schemas import Amount

# The drawing area of every chart, in SVG user units (the SVG scales to its box).
chart_width = 600
chart_height = 160
# Room for the value labels on the left and the day labels below.
margin_left = 56
# Room for the last day's label, centred under the last point.
margin_right = 24
margin_bottom = 22
margin_top = 8
bar_gap_fraction = Decimal("0.25")
# Days labelled under a 30-day axis: every seventh, and the last.
day_label_every = 7


@dataclass(frozen=True, slots=True)
class Tick:
    position: float  # x or y in SVG units
    text: str


@dataclass(frozen=True, slots=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    label: str  # the bar's own <title>: its day and value


@dataclass(frozen=True, slots=True)
class Chart:
    key: str  # unique on the page: ids of <title> and <desc>
    title: str
    summary: str  # one sentence: the <desc>, and printed under the chart
    y_ticks: list[Tick]
    x_ticks: list[Tick]
    line: str = ""  # polyline points, "x,y x,y …" (line charts)
    area: str = ""  # the same line closed down to the axis (line charts)
    bars: tuple[Bar, ...] = ()
    table_head: tuple[str, ...] = ()
    table_rows: tuple[tuple[str, ...], ...] = ()
    width: int = chart_width
    height: int = chart_height

    @property
    def plot_left(self) -> int:
        return margin_left

    @property
    def plot_right(self) -> int:
        return self.width - margin_right

    @property
    def plot_bottom(self) -> int:
        return self.height - margin_bottom


@dataclass(frozen=True, slots=True)
class Meter:
    """One horizontal percentage bar (an endpoint's success rate)."""

    label: str
    percent: int | None  # None: nothing to measure
    detail: str
    tone: str  # ok, warn, bad, none: the bar's colour class


def compact(minor_units: int, currency: str) -> str:
    """An axis label, without the currency the chart's title names: 1250000 minor USD
    units → `12.5k`, 54000000 minor USDC units → `54`."""
    value = Decimal(Amount.of(minor_units, currency).display_value)
    for size, suffix in ((Decimal(10) ** 9, "B"), (Decimal(10) ** 6, "M"), (Decimal(1000), "k")):
        if abs(value) >= size:
            return f"{_short(value / size)}{suffix}"
    return _short(value)


def _short(value: Decimal) -> str:
    """At most one decimal, none when whole: 12.5, 540, 0.3."""
    shown = value.quantize(Decimal("0.1"))
    return f"{shown:f}".removesuffix(".0")


def full(minor_units: int, currency: str) -> str:
    """A value in a table: `1,250.00 USD`."""
    display = Amount.of(minor_units, currency).display_value
    whole, _, fraction = display.partition(".")
    sign = "-" if whole.startswith("-") else ""
    number = f"{sign}{int(whole.lstrip('-')):,}" + (f".{fraction}" if fraction else "")
    return f"{number} {currency}"


def _day(day: date) -> str:
    return day.strftime("%b %d").replace(" 0", " ")


def _range(values: Sequence[int]) -> tuple[int, int]:
    """The value axis: from zero (or below, for a negative value) to the highest value,
    never empty."""
    low, high = min(0, *values), max(0, *values)
    return (low, high) if high > low else (low, low + 1)


def _y(value: int, low: int, high: int, height: int) -> float:
    bottom, top = height - margin_bottom, margin_top
    return round(bottom - (value - low) * (bottom - top) / (high - low), 1)


def _y_ticks(low: int, high: int, height: int, text: Callable[[int], str]) -> list[Tick]:
    """The lowest, middle and highest values, each label once: an axis of nothing but
    zeros (a currency not held yet) says 0 once, not three times."""
    middle = low + (high - low) // 2
    ticks: dict[str, Tick] = {}
    for value in (low, middle, high):
        ticks.setdefault(text(value), Tick(_y(value, low, high, height), text(value)))
    return list(ticks.values())


def _x_ticks(days: Sequence[date], centre: Callable[[int], float]) -> list[Tick]:
    last = len(days) - 1
    # Every seventh day, and the last (dropping a seventh day too close to it to read).
    chosen = {index for index in range(0, len(days), day_label_every) if last - index >= 3} | {last}
    return [Tick(centre(index), _day(days[index])) for index in sorted(chosen)]


def line_chart(
    *, key: str, title: str, currency: str, days: Sequence[date], values: Sequence[int]
) -> Chart:
    """A balance over days: one point a day, the area under it shaded."""
    assert days and len(days) == len(values)
    low, high = _range(values)
    span = chart_width - margin_left - margin_right
    step = span / max(len(days) - 1, 1)

    def x(index: int) -> float:
        return round(margin_left + index * step, 1)

    points = [
        f"{x(index)},{_y(value, low, high, chart_height)}" for index, value in enumerate(values)
    ]
    base = _y(max(low, 0) if low < 0 < high else low, low, high, chart_height)
    area = f"{x(0)},{base} " + " ".join(points) + f" {x(len(values) - 1)},{base}"
    lowest, highest = min(values), max(values)
    summary = (
        f"{title}: {full(values[-1], currency)} on {_day(days[-1])}, "
        f"from {full(values[0], currency)} on {_day(days[0])}; "
        f"lowest {full(lowest, currency)}, highest {full(highest, currency)}."
    )
    return Chart(
        key=key,
        title=title,
        summary=summary,
        y_ticks=_y_ticks(low, high, chart_height, lambda value: compact(value, currency)),
        x_ticks=_x_ticks(days, x),
        line=" ".join(points),
        area=area,
        table_head=("Day", f"Balance ({currency})"),
        table_rows=tuple(
            (day.isoformat(), full(value, currency))
            for day, value in zip(days, values, strict=True)
        ),
    )


def bar_chart(
    *,
    key: str,
    title: str,
    days: Sequence[date],
    values: Sequence[int],
    text: Callable[[int], str],
    axis_text: Callable[[int], str],
    summary: str,
    table_head: tuple[str, ...],
    table_rows: tuple[tuple[str, ...], ...],
) -> Chart:
    """A value a day as bars (`text` for a bar's title, `axis_text` for the axis)."""
    assert days and len(days) == len(values)
    low, high = _range(values)
    slot = Decimal(chart_width - margin_left - margin_right) / len(days)
    width = float(slot * (1 - bar_gap_fraction))

    def left(index: int) -> float:
        return float(margin_left + slot * index + slot * bar_gap_fraction / 2)

    zero = _y(0, low, high, chart_height)
    bars = []
    for index, (day, value) in enumerate(zip(days, values, strict=True)):
        top = _y(value, low, high, chart_height)
        bars.append(
            Bar(
                x=round(left(index), 1),
                y=min(top, zero),
                width=round(width, 1),
                height=round(abs(zero - top), 1),
                label=f"{_day(day)}: {text(value)}",
            )
        )
    return Chart(
        key=key,
        title=title,
        summary=summary,
        y_ticks=_y_ticks(low, high, chart_height, axis_text),
        x_ticks=_x_ticks(days, lambda index: round(left(index) + width / 2, 1)),
        bars=tuple(bars),
        table_head=table_head,
        table_rows=table_rows,
    )


def meter(label: str, succeeded: int, failed: int, *, window: str) -> Meter:
    attempts = succeeded + failed
    if not attempts:
        return Meter(label, None, f"no delivery attempts in {window}", "none")
    percent = succeeded * 100 // attempts
    tone = "ok" if percent >= 95 else "warn" if percent >= 80 else "bad"
    detail = f"{percent}%: {succeeded} of {attempts} attempts succeeded in {window}"
    return Meter(label, percent, detail, tone)
