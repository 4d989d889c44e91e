"""Traces (OpenTelemetry, an in-memory exporter): one trace from `POST /v1/transfers`
through the outbox row it writes to the webhook the worker delivers to a real HTTP server
on 127.0.0.1; log lines carry the trace's ids; off, nothing is traced or stored."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind
from sqlalchemy import select

from corridor.config import Environment
from corridor.kit import tracing
from corridor.models.event import Event
from tests.conftest import built_app, migrated_database
from tests.operations.support import payer
from tests.webhooks.support import create_endpoint, deliver


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    tracing.configure(service_name="corridor-test", exporter=exporter)
    try:
        yield exporter
    finally:
        tracing.shutdown()


async def _events(application, organization_id: str) -> list[Event]:
    async with application.state.database.session(write=False) as session:
        found = await session.execute(
            select(Event).where(Event.organization_id == organization_id).order_by(Event.id)
        )
        return list(found.scalars())


async def test_one_trace_from_the_request_to_the_delivered_webhook(
    spans, tmp_path, backend, make_tenant, receiver
):
    async with (
        migrated_database(backend, tmp_path) as url,
        built_app(url, Environment.SANDBOX, tracing_enabled=True) as application,
    ):
        tenant = await make_tenant(application)
        await create_endpoint(tenant.client, receiver.url, eventTypes=["transfer.created"])
        body = await payer(tenant.client)
        await deliver(application)  # what the set-up wrote goes first
        spans.clear()
        receiver.received.clear()

        created = await tenant.client.post("/v1/transfers", json=body)
        assert created.status_code == 201, created.text
        assert await deliver(application) == 1
        tracing.flush()
        finished = spans.get_finished_spans()

        server = [s for s in finished if s.kind is SpanKind.SERVER]
        assert [s.name for s in server] == ["POST /v1/transfers"]
        trace_id = server[0].context.trace_id
        # The outbox row carries the request's trace.
        events = [e for e in await _events(application, tenant.organization_id)]
        written = next(
            e
            for e in events
            if e.type == "transfer.created" and e.data["id"] == created.json()["id"]
        )
        assert written.trace_context is not None
        assert written.trace_context.split("-")[1] == format(trace_id, "032x")
        # The worker continued it: the delivery and its HTTP call are in the same trace.
        in_trace = [s for s in finished if s.context.trace_id == trace_id]
        by_id = {s.context.span_id: s for s in in_trace}
        deliver_span = next(s for s in in_trace if s.name == "webhook.deliver")
        call = next(s for s in in_trace if s.kind is SpanKind.CLIENT and s.name == "POST")
        assert call.parent.span_id == deliver_span.context.span_id
        assert call.attributes["server.address"] == "127.0.0.1"
        assert call.attributes["http.response.status_code"] == 200
        assert call.attributes["corridor.webhook.message_id"] == written.id
        assert receiver.received[0].message_id == written.id
        # The delivery hangs from the request's own span tree.
        ancestor = by_id.get(deliver_span.parent.span_id)
        assert ancestor is not None
        while ancestor.parent is not None and ancestor.parent.span_id in by_id:
            ancestor = by_id[ancestor.parent.span_id]
        assert ancestor.context.span_id == server[0].context.span_id
        if backend == "sqlite":
            # The general path's statements are spans of the request (SQLAlchemy's
            # instrumentation); the express path (PostgreSQL) writes in one statement of
            # its own, inside the request's span.
            statements = [s for s in in_trace if s.kind is SpanKind.CLIENT and s is not call]
            assert any("INSERT" in s.name or "events" in str(s.attributes) for s in statements)
        # No statement parameters are recorded (secrets, personal data).
        for span in finished:
            assert body["customerId"] not in str(span.attributes)


async def test_log_lines_carry_the_trace_and_span_ids(spans):
    with tracing.span("work") as current:
        assert current is not None
        line = tracing.add_trace_ids(None, "info", {"event": "hello"})
        context = current.get_span_context()
    assert line["trace_id"] == format(context.trace_id, "032x")
    assert line["span_id"] == format(context.span_id, "016x")
    assert tracing.add_trace_ids(None, "info", {"event": "outside"}) == {"event": "outside"}


async def test_off_nothing_is_traced_nor_stored(tmp_path, backend, make_tenant):
    assert not tracing.enabled()
    assert tracing.current_traceparent() is None
    with tracing.span("work") as current:
        assert current is None
    assert tracing.add_trace_ids(None, "info", {"event": "x"}) == {"event": "x"}
    async with (
        migrated_database(backend, tmp_path) as url,
        built_app(url, Environment.SANDBOX) as application,
    ):
        tenant = await make_tenant(application)
        await payer(tenant.client)
        events = await _events(application, tenant.organization_id)
        assert events and all(event.trace_context is None for event in events)


def test_traces_are_on_when_an_otlp_endpoint_is_configured():
    assert not tracing.wanted(None, {})
    assert tracing.wanted(None, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"})
    assert tracing.wanted(None, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"})
    assert not tracing.wanted(False, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"})
    assert tracing.wanted(True, {})
    assert not tracing.wanted(True, {"OTEL_SDK_DISABLED": "true"})


async def test_an_assistant_run_continues_the_trace_of_the_request_that_asked(
    spans, tmp_path, backend, make_tenant
):
    from tests.agents.conftest import make_owner
    from tests.assistant.conftest import drive, start

    async with (
        migrated_database(backend, tmp_path) as url,
        built_app(url, Environment.SANDBOX, tracing_enabled=True) as application,
    ):
        owner = await make_owner(application, await make_tenant(application))
        chat = await start(owner.client)
        spans.clear()
        sent = await chat.say(f"What is the balance of {owner.usd_account}?")
        await drive(application)
        assert (await chat.run(sent["run"]["id"]))["status"] == "completed"
        tracing.flush()
        finished = spans.get_finished_spans()
        asked = next(
            s
            for s in finished
            if s.kind is SpanKind.SERVER
            and s.name == "POST /v1/assistant/threads/{thread_id}/messages"
        )
        run = next(s for s in finished if s.name == "assistant.run")
        assert run.context.trace_id == asked.context.trace_id
        assert run.parent.span_id == asked.context.span_id
        # The read tool the model asked for is a span of the run's trace.
        tool = next(s for s in finished if s.name.startswith("tool "))
        assert tool.context.trace_id == asked.context.trace_id
