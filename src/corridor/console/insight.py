"""What the home page draws: the organization's balances over the last 30 days per
currency, transfer volume per day, and each webhook endpoint's delivery success rate,
read through the services (treasury, transfers, webhooks history) as the console user."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from functools import partial

from corridor.console.charts import Chart, Meter, bar_chart, compact, full, line_chart, meter
from corridor.console.session import Console
from corridor.transfers import service as transfers
from corridor.treasury import service as treasury
from corridor.webhooks import history

chart_days = 30
# Endpoints drawn on the home page (an organization has a handful).
health_endpoints_max = 50


@dataclass(frozen=True, slots=True)
class Insight:
    balances: list[Chart]  # one per currency
    volume: list[Chart]  # the count, then the amount of each currency
    webhooks: list[Meter]


async def balance_charts(console: Console) -> list[Chart]:
    histories = await treasury.balance_history(
        console.reading, caller=console.caller, now=console.now(), days=chart_days
    )
    return [
        line_chart(
            key=f"balance-{history.currency.lower()}",
            title=f"{history.currency} balance, last {chart_days} days",
            currency=history.currency,
            days=[point.day for point in history.days],
            values=[point.posted for point in history.days],
        )
        for history in histories
    ]


async def volume_charts(console: Console) -> list[Chart]:
    found = await transfers.daily_volume(
        console.reading, caller=console.caller, now=console.now(), days=chart_days
    )
    days = [volume.day for volume in found]
    counts = [volume.count for volume in found]
    currencies = sorted({currency for volume in found for currency in volume.amounts})
    total = sum(counts)
    busiest = max(found, key=lambda volume: volume.count)
    per_currency = {
        currency: [volume.amounts.get(currency, 0) for volume in found] for currency in currencies
    }
    charts = [
        bar_chart(
            key="volume-count",
            title=f"Transfers per day, last {chart_days} days",
            days=days,
            values=counts,
            text=lambda count: f"{count} transfer{'' if count == 1 else 's'}",
            axis_text=str,
            summary=(
                f"{total} transfer{'' if total == 1 else 's'} in the last {chart_days} days"
                + (
                    f"; the busiest day {busiest.day.isoformat()} with {busiest.count}."
                    if total
                    else "."
                )
            ),
            table_head=("Day", "Transfers", *(f"Sent ({currency})" for currency in currencies)),
            table_rows=tuple(
                (
                    volume.day.isoformat(),
                    str(volume.count),
                    *(full(volume.amounts.get(currency, 0), currency) for currency in currencies),
                )
                for volume in found
            ),
        )
    ]
    for currency, values in per_currency.items():
        charts.append(
            bar_chart(
                key=f"volume-{currency.lower()}",
                title=f"{currency} sent per day",
                days=days,
                values=values,
                text=partial(_full_of, currency),
                axis_text=partial(_compact_of, currency),
                summary=f"{full(sum(values), currency)} sent in the last {chart_days} days.",
                table_head=(),
                table_rows=(),
            )
        )
    return charts


def _full_of(currency: str, value: int) -> str:
    return full(value, currency)


def _compact_of(currency: str, value: int) -> str:
    return compact(value, currency)


async def webhook_meters(console: Console) -> list[Meter]:
    since = console.now() - timedelta(days=chart_days)
    found = await history.endpoint_health(
        console.reading, caller=console.caller, since=since, endpoints_max=health_endpoints_max
    )
    window = f"the last {chart_days} days"
    return [meter(health.url, health.succeeded, health.failed, window=window) for health in found]


async def home_insight(console: Console) -> Insight:
    return Insight(
        balances=await balance_charts(console),
        volume=await volume_charts(console),
        webhooks=await webhook_meters(console),
    )
