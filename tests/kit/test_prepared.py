"""Reads built once and sent on the driver (kit/prepared.py) answer what the ORM answers,
inside the session's own transaction, with its errors, on both databases."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import bindparam, func, select, text, update
from sqlalchemy.exc import DBAPIError

from corridor.kit.ids import new_id
from corridor.kit.prepared import IdList, PreparedRead, RowShape, among
from corridor.models.event import Event
from corridor.models.transfer import Transfer

AT = datetime(2026, 11, 26, 9, 15, 30, 123456, tzinfo=UTC)
EVENT_ROW = RowShape(Event)
# A literal written in the statement (the type) beside the named parameter (the id).
BY_ID = PreparedRead(
    select(*EVENT_ROW.columns).where(
        Event.id == bindparam("event_id"), Event.type == "test.prepared"
    )
)


def _event(organization_id: str, **values) -> Event:
    return Event(
        id=new_id("msg"),
        organization_id=organization_id,
        type="test.prepared",
        data={"amount": {"value": "12550"}, "big": 2**70, "note": "naïve ✓"},
        created_at=AT,
        **values,
    )


async def _stored(app, event: Event) -> Event:
    async with app.state.database.session() as session, session.begin():
        session.add(event)
    return event


def _columns(instance: object) -> dict[str, object]:
    return {key: getattr(instance, key) for key in EVENT_ROW._keys}


async def test_a_row_read_holds_what_the_orm_loads(app, tenant):
    event = await _stored(app, _event(tenant.organization_id))
    async with app.state.database.session() as session:
        loaded = await session.get(Event, event.id)
        assert loaded is not None
        expected = _columns(loaded)
    async with app.state.database.session() as session:
        rows = await BY_ID.rows(session, {"event_id": event.id})
        read = EVENT_ROW.read(rows[0], 0)
    assert _columns(read) == expected
    assert read.created_at == AT and read.created_at.tzinfo is not None  # UTCDateTime
    assert read.data["big"] == 2**70  # JSON decoded, integers past 64 bits kept
    assert read.tags == []
    nothing = (None,) * EVENT_ROW.width
    assert EVENT_ROW.read(nothing, 0) is None  # an outer join that found no row


async def test_a_row_loaded_is_the_unit_of_works_own(app, tenant):
    event = await _stored(app, _event(tenant.organization_id))
    async with app.state.database.session() as session, session.begin():
        rows = await BY_ID.rows(session, {"event_id": event.id})
        loaded = EVENT_ROW.load(session, rows[0], 0)
        assert loaded is not None
        assert await session.get(Event, event.id) is loaded  # in the identity map
        assert not session.dirty
        loaded.dispatched_at = AT  # a change the unit of work flushes
    async with app.state.database.session() as session:
        assert (await session.get(Event, event.id)).dispatched_at == AT


async def test_a_row_the_session_holds_is_refreshed_not_doubled(app, tenant):
    event = await _stored(app, _event(tenant.organization_id))
    async with app.state.database.session() as session, session.begin():
        held = await session.get(Event, event.id)
        # Written behind the held row's back (a statement on the table, not the unit of work).
        table = Event.__table__
        await session.execute(update(table).where(table.c.id == event.id).values(dispatched_at=AT))
        assert held.dispatched_at is None
        rows = await BY_ID.rows(session, {"event_id": event.id})
        assert EVENT_ROW.load(session, rows[0], 0) is held
        assert held.dispatched_at == AT  # what populate_existing would show
        assert not session.dirty


async def test_the_read_runs_in_the_sessions_transaction(app, tenant):
    event = _event(tenant.organization_id)
    async with app.state.database.session() as session:
        session.add(event)
        await session.flush()  # written, not committed
        assert len(await BY_ID.rows(session, {"event_id": event.id})) == 1
        await session.rollback()
        assert await BY_ID.rows(session, {"event_id": event.id}) == []


async def test_the_literal_in_the_statement_is_sent_with_it(app, tenant):
    event = _event(tenant.organization_id)
    event.type = "test.other"
    await _stored(app, event)
    async with app.state.database.session() as session:
        assert await BY_ID.rows(session, {"event_id": event.id}) == []


async def test_an_expanding_in_runs_through_the_session(app, tenant):
    events = [_event(tenant.organization_id) for _ in range(3)]
    async with app.state.database.session() as session, session.begin():
        session.add_all(events)
    among = PreparedRead(
        select(Event.id).where(Event.id.in_(bindparam("ids", expanding=True))).order_by(Event.id)
    )
    wanted = sorted(event.id for event in events[:2])
    async with app.state.database.session() as session:
        assert [row[0] for row in await among.rows(session, {"ids": wanted})] == wanted


async def test_a_database_error_is_raised_as_sqlalchemy_raises_it(app, backend):
    if backend != "postgresql":
        pytest.skip("SQLite divides by zero into NULL; its statements run through the session")
    failing = PreparedRead(select(func.count(Transfer.id) / bindparam("divisor")))
    async with app.state.database.session() as session:
        with pytest.raises(DBAPIError) as raised:
            await failing.rows(session, {"divisor": 0})
    assert not raised.value.connection_invalidated
    assert "division by zero" in str(raised.value.orig)
    assert "parameters hidden" in str(raised.value)  # as the engine's own errors: no values


async def test_a_lost_connection_is_invalidated_and_the_next_session_works(app, backend):
    if backend != "postgresql":
        pytest.skip("a server that ends a connection is PostgreSQL's")
    async with app.state.database.session() as session:
        await session.execute(text("SELECT 1"))
        async with app.state.database.session() as other, other.begin():
            pid = (await session.execute(text("SELECT pg_backend_pid()"))).scalar_one()
            await other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        with pytest.raises(DBAPIError) as raised:
            await BY_ID.rows(session, {"event_id": "msg_none"})
    assert raised.value.connection_invalidated
    async with app.state.database.session() as session:
        assert await BY_ID.rows(session, {"event_id": "msg_none"}) == []


async def test_a_list_of_ids_is_one_parameter_of_any_length(app, tenant):
    events = [_event(tenant.organization_id) for _ in range(4)]
    async with app.state.database.session() as session, session.begin():
        session.add_all(events)
    listed = PreparedRead(
        select(Event.id).where(among(Event.id, bindparam("ids", type_=IdList()))).order_by(Event.id)
    )
    ids = sorted(event.id for event in events)
    async with app.state.database.session() as session:
        for wanted in ([], ids[:1], ids[1:3], [*ids, "msg_unknown"]):
            found = [row[0] for row in await listed.rows(session, {"ids": wanted})]
            assert found == [i for i in ids if i in wanted]


async def test_the_units_changes_are_written_before_the_read(app, tenant):
    event = await _stored(app, _event(tenant.organization_id))
    async with app.state.database.session() as session, session.begin():
        held = await session.get(Event, event.id)
        held.dispatched_at = AT  # changed, not yet flushed
        rows = await BY_ID.rows(session, {"event_id": event.id})
        assert EVENT_ROW.read(rows[0], 0).dispatched_at == AT
        assert EVENT_ROW.load(session, rows[0], 0) is held and held.dispatched_at == AT
        with session.no_autoflush:
            held.dispatched_at = None
            rows = await BY_ID.rows(session, {"event_id": event.id})
        assert EVENT_ROW.read(rows[0], 0).dispatched_at == AT  # not written under no_autoflush


async def _in_transaction(session) -> bool:
    """Whether the session's connection is inside a transaction on the server's side."""
    raw = await (await session.connection()).get_raw_connection()
    return raw.driver_connection.is_in_transaction()


async def test_a_reading_sessions_plain_read_takes_no_transaction_until_it_writes(
    app, tenant, backend
):
    if backend != "postgresql":
        pytest.skip("SQLite's reads run through the session, in its transaction")
    event = _event(tenant.organization_id)
    await _stored(app, event)
    locked = PreparedRead(
        select(*EVENT_ROW.columns).where(Event.id == bindparam("event_id")).with_for_update()
    )
    async with app.state.database.session(write=False) as session:
        assert len(await BY_ID.rows(session, {"event_id": event.id})) == 1
        assert not await _in_transaction(session)  # no BEGIN, no COMMIT to send
        assert len(await locked.rows(session, {"event_id": event.id})) == 1
        assert await _in_transaction(session)  # a lock lasts to the end of a transaction
    async with app.state.database.session() as session:  # a writing session: as always
        await BY_ID.rows(session, {"event_id": event.id})
        assert await _in_transaction(session)
    # A reading session that writes after its read does so in a transaction all the same.
    later = _event(tenant.organization_id)
    async with app.state.database.session(write=False) as session:
        await BY_ID.rows(session, {"event_id": event.id})
        session.add(later)
        await session.flush()
        assert await _in_transaction(session)
        await session.rollback()
    async with app.state.database.session() as session:
        assert await BY_ID.rows(session, {"event_id": later.id}) == []
