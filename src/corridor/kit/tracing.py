"""Traces (OpenTelemetry): on when an OTLP endpoint is configured, nothing when not.

Off (the default), nothing is installed: no middleware, no database or HTTP client hooks,
and each function here returns at its first line (`current_traceparent()` is None, the
span helpers are empty context managers). On (`configure`), spans go by OTLP/HTTP to the
collector the standard OTEL_EXPORTER_OTLP_* variables name (sampling by OTEL_TRACES_SAMPLER,
ParentBased(AlwaysOn) by default), from the maintained instrumentations: FastAPI (the
server span of each request, named by route template), SQLAlchemy (a span per statement)
and httpx (the model providers' calls); and Corridor's own spans: a tool call, an
assistant run's steps, a webhook delivery and its HTTP attempt.

One trace follows a change through the outbox: `emit` stores the current trace context
(W3C `traceparent`) on the event row (`current_traceparent`), and the worker that sends
the event's webhooks continues that trace (`continued`). An assistant run carries the
trace of the request that asked for it in the same way. Log lines carry `trace_id` and
`span_id` while a span is current (`add_trace_ids`, a structlog processor).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter
    from opentelemetry.trace import Span, Tracer
    from sqlalchemy.ext.asyncio import AsyncEngine

TRACER_NAME = "corridor"
OTLP_ENDPOINT_SETTINGS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


class _State:
    provider: TracerProvider | None = None
    tracer: Tracer | None = None
    sql_connections: Any = None
    httpx_instrumented: bool = False


_state = _State()


def enabled() -> bool:
    return _state.tracer is not None


def wanted(setting: bool | None, environment: Mapping[str, str]) -> bool:
    """Whether traces are on: the setting when given, else whether an OTLP endpoint is
    configured (OTEL_SDK_DISABLED=true turns them off either way)."""
    if environment.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if setting is not None:
        return setting
    return any(environment.get(name) for name in OTLP_ENDPOINT_SETTINGS)


def configure(*, service_name: str, exporter: SpanExporter | None = None) -> None:
    """Turn traces on for this process (once; later calls keep the first set-up). Spans
    are exported by OTLP/HTTP in batches, or to `exporter` as they end (tests)."""
    if _state.provider is not None:
        return
    from opentelemetry import trace
    from opentelemetry.sdk.resources import OTELResourceDetector, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    from corridor import __version__

    resource = Resource.create({"service.name": service_name, "service.version": __version__})
    resource = resource.merge(OTELResourceDetector().detect())  # OTEL_SERVICE_NAME etc.
    provider = TracerProvider(resource=resource)
    if exporter is None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    else:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    # Libraries that look the provider up globally (pydantic-ai, the MCP SDK) find it too.
    trace.set_tracer_provider(provider)
    _state.provider = provider
    _state.tracer = provider.get_tracer(TRACER_NAME, __version__)
    _instrument_httpx(provider)


def _instrument_httpx(provider: TracerProvider) -> None:
    from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor

    HTTPXClientInstrumentor().instrument(tracer_provider=provider)
    _state.httpx_instrumented = True


def instrument_app(app: Any) -> None:
    """The FastAPI app's server spans (outermost, named `METHOD /route/{template}`)."""
    if _state.provider is None:
        return
    from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor

    FastAPIInstrumentor.instrument_app(
        app, tracer_provider=_state.provider, exclude_spans=["receive", "send"]
    )


def instrument_engine(engine: AsyncEngine) -> None:
    """A span per statement on this engine (SQLAlchemy's instrumentation; no statement
    parameters are recorded)."""
    if _state.provider is None:
        return
    from opentelemetry.instrumentation.sqlalchemy import __version__ as version
    from opentelemetry.instrumentation.sqlalchemy.engine import EngineTracer
    from opentelemetry.metrics import get_meter

    if _state.sql_connections is None:
        meter = get_meter("opentelemetry.instrumentation.sqlalchemy", version)
        _state.sql_connections = meter.create_up_down_counter(
            "db.client.connections.usage", unit="connections"
        )
    tracer = _state.provider.get_tracer("opentelemetry.instrumentation.sqlalchemy", version)
    EngineTracer(tracer, engine.sync_engine, _state.sql_connections)


def shutdown() -> None:
    """Flush and turn traces off again (tests; a process ending)."""
    provider = _state.provider
    if provider is None:
        return
    provider.force_flush()
    if _state.httpx_instrumented:
        from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor

        HTTPXClientInstrumentor().uninstrument()
        _state.httpx_instrumented = False
    _state.tracer = None
    _state.provider = None


def flush() -> None:
    if _state.provider is not None:
        _state.provider.force_flush()


# --- Carrying a trace through a row ----------------------------------------------------------


def current_traceparent() -> str | None:
    """The current span's context as a W3C `traceparent`, to store with a row whose work
    another process carries on; None when traces are off or no span is current."""
    if _state.tracer is None:
        return None
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    carrier: dict[str, str] = {}
    TraceContextTextMapPropagator().inject(carrier)
    return carrier.get("traceparent")


@contextlib.contextmanager
def continued(
    traceparent: str | None, name: str, *, attributes: Mapping[str, Any] | None = None
) -> Iterator[Span | None]:
    """A span continuing the trace a row carries (`traceparent`; a new trace without one),
    current inside the block."""
    tracer = _state.tracer
    if tracer is None:
        yield None
        return
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    parent = (
        TraceContextTextMapPropagator().extract({"traceparent": traceparent})
        if traceparent
        else None
    )
    with tracer.start_as_current_span(name, context=parent, attributes=attributes) as span:
        yield span


@contextlib.contextmanager
def span(
    name: str, *, attributes: Mapping[str, Any] | None = None, client: bool = False
) -> Iterator[Span | None]:
    """A span of Corridor's own, child of the current one (`client`: an outgoing call)."""
    tracer = _state.tracer
    if tracer is None:
        yield None
        return
    from opentelemetry.trace import SpanKind

    kind = SpanKind.CLIENT if client else SpanKind.INTERNAL
    with tracer.start_as_current_span(name, kind=kind, attributes=attributes) as current:
        yield current


def set_attributes(current: Span | None, **attributes: Any) -> None:
    if current is not None:
        current.set_attributes(
            {key: value for key, value in attributes.items() if value is not None}
        )


def mark_failed(current: Span | None, description: str) -> None:
    if current is None:
        return
    from opentelemetry.trace import Status, StatusCode

    current.set_status(Status(StatusCode.ERROR, description))


# --- Logs ----------------------------------------------------------------------------------


def add_trace_ids(
    _logger: Any, _method: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """structlog processor: `trace_id` and `span_id` of the current span, when traces are
    on and a span is current."""
    if _state.tracer is None:
        return event_dict
    from opentelemetry.trace import get_current_span

    context = get_current_span().get_span_context()
    if context.is_valid:
        event_dict.setdefault("trace_id", format(context.trace_id, "032x"))
        event_dict.setdefault("span_id", format(context.span_id, "016x"))
    return event_dict
