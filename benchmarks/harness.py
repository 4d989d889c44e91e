"""Measure coroutines: throughput, latency percentiles, and the ratio to a baseline."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

console = Console(width=132)  # wide enough for the table in CI logs


@dataclass(frozen=True, slots=True)
class Result:
    name: str
    operations: int
    seconds: float
    latencies_ms: list[float]
    # Percentiles measured elsewhere (wrk reports 50, 75, 90 and 99), used when there are no
    # individual latencies.
    percentiles_ms: dict[int, float] = field(default_factory=dict)

    @property
    def throughput(self) -> float:
        return self.operations / self.seconds if self.seconds else 0.0

    def percentile(self, fraction: float) -> float | None:
        if not self.latencies_ms:
            return self.percentiles_ms.get(round(fraction * 100))
        ordered = sorted(self.latencies_ms)
        index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
        return ordered[index]

    @property
    def mean_ms(self) -> float | None:
        return statistics.fmean(self.latencies_ms) if self.latencies_ms else None


async def measure(
    name: str, operation: Callable[[int], Awaitable[None]], *, operations: int, concurrency: int
) -> Result:
    """Run operation(i) for i in range(operations), `concurrency` at a time."""
    latencies: list[float] = []
    queue: asyncio.Queue[int] = asyncio.Queue()
    for index in range(operations):
        queue.put_nowait(index)
    with Progress(
        TextColumn(f"[bold]{name}[/bold]"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task(name, total=operations)

        async def worker() -> None:
            while True:
                try:
                    index = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                started = time.perf_counter()
                await operation(index)
                latencies.append((time.perf_counter() - started) * 1000)
                progress.advance(task)

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        seconds = time.perf_counter() - started
    return Result(name=name, operations=operations, seconds=seconds, latencies_ms=latencies)


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def report(title: str, results: list[Result], *, baseline: Result) -> None:
    table = Table(title=title, title_justify="left")
    for column in (
        "benchmark",
        "ops",
        "ops/s",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "mean ms",
        "ops/s vs baseline",
    ):
        table.add_column(column, justify="right" if column != "benchmark" else "left")
    for result in [baseline, *results]:
        ratio = result.throughput / baseline.throughput if baseline.throughput else 0.0
        table.add_row(
            result.name + (" (baseline)" if result is baseline else ""),
            str(result.operations),
            f"{result.throughput:,.0f}",
            _ms(result.percentile(0.50)),
            _ms(result.percentile(0.95)),
            _ms(result.percentile(0.99)),
            _ms(result.mean_ms),
            f"{ratio:.2f}x",
        )
    console.print(table)
