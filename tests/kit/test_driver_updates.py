"""A flush's changes to loaded rows (kit/prepared.py's DriverSession: on the driver on
PostgreSQL, the ORM's flush on SQLite) write what the ORM's own flush writes: the changed
columns only, JSON None as JSON `null`, with its errors and rollbacks."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import delete, inspect, update
from sqlalchemy.exc import IntegrityError, PendingRollbackError
from sqlalchemy.orm.attributes import flag_modified
from sqlalchemy.orm.exc import StaleDataError

from corridor.models.event import Event
from corridor.models.transfer import Transfer
from tests.kit.test_driver_inserts import _event, _orm_session, _stored_columns, _transfer
from tests.transfers.conftest import make_customer

LATER = datetime(2026, 11, 29, 2, 10, 5, 500000, tzinfo=UTC)


def _change(transfer: Transfer) -> None:
    transfer.status = "PENDING"
    transfer.source_amount = 999
    transfer.remarks = "naïve ✓"
    transfer.metadata_ = {"order": "A-1", "big": 2**70}
    transfer.developer_fee_request = {"fixed": "1.00"}
    transfer.source_request = None  # a JSON attribute that held a value, set to None
    transfer.updated_at = LATER


async def _stored(app, *instances) -> None:
    async with app.state.database.session() as session, session.begin():
        session.add_all(instances)


async def test_a_change_is_written_as_the_orm_writes_it(app, tenant):
    customer = await make_customer(tenant.client)
    ours = _transfer(tenant.organization_id, customer.id)
    orms = _transfer(tenant.organization_id, customer.id)
    await _stored(app, ours, orms)
    async with app.state.database.session() as session, session.begin():
        _change(await session.get(Transfer, ours.id))
    async with _orm_session(app) as session, session.begin():
        _change(await session.get(Transfer, orms.id))
    async with app.state.database.session() as session:
        written = await _stored_columns(session, ours)
        assert written == await _stored_columns(session, orms)
        read = await session.get(Transfer, ours.id)
    stored = {name: null for name, null, _ in written}
    assert stored["source_request"] is False  # JSON null, as the ORM's UPDATE writes it
    assert read.status == "PENDING" and read.source_amount == 999
    assert read.metadata_ == {"order": "A-1", "big": 2**70} and read.updated_at == LATER


def _another_writer_meanwhile(backend: str) -> None:
    if backend == "sqlite":
        pytest.skip(
            "SQLite's one writer: no other transaction writes while this one holds the lock"
        )


async def test_only_the_changed_columns_are_written(app, tenant, backend):
    _another_writer_meanwhile(backend)
    event = _event(tenant.organization_id)
    await _stored(app, event)
    async with app.state.database.session() as session, session.begin():
        loaded = await session.get(Event, event.id)
        # Another transaction changes another column of the row meanwhile.
        async with app.state.database.session() as other, other.begin():
            await other.execute(update(Event).where(Event.id == event.id).values(tags=["x"]))
        loaded.dispatched_at = LATER
    async with app.state.database.session() as session:
        read = await session.get(Event, event.id)
        assert read.dispatched_at == LATER and read.tags == ["x"]


async def test_a_change_flushed_is_committed_history_and_a_rollback_forgets_it(app, tenant):
    event = _event(tenant.organization_id)
    await _stored(app, event)
    async with app.state.database.session() as session:
        loaded = await session.get(Event, event.id)
        loaded.dispatched_at = LATER
        await session.flush()
        assert not session.dirty
        assert not inspect(loaded).attrs.dispatched_at.history.has_changes()
        await session.rollback()
        # Expired by the rollback: read again, as it stands.
        assert await session.get(Event, event.id) is loaded
        assert loaded.dispatched_at is None


async def test_a_json_value_changed_in_place_and_flagged_is_written(app, tenant):
    event = _event(tenant.organization_id)
    await _stored(app, event)
    async with app.state.database.session() as session, session.begin():
        loaded = await session.get(Event, event.id)
        loaded.data["note"] = "changed"
        flag_modified(loaded, "data")
    async with app.state.database.session() as session:
        assert (await session.get(Event, event.id)).data["note"] == "changed"


async def test_a_row_gone_is_the_orms_stale_data_error(app, tenant, backend):
    _another_writer_meanwhile(backend)
    event = _event(tenant.organization_id)
    await _stored(app, event)
    async with app.state.database.session() as session:
        loaded = await session.get(Event, event.id)
        async with app.state.database.session() as other, other.begin():
            await other.execute(delete(Event).where(Event.id == event.id))
        loaded.dispatched_at = LATER
        with pytest.raises(StaleDataError):
            await session.flush()
        with pytest.raises(PendingRollbackError):
            await session.get(Event, "msg_other")
        await session.rollback()


async def test_a_refused_change_is_the_orms_integrity_error_without_its_values(app, tenant):
    event = _event(tenant.organization_id)
    await _stored(app, event)
    async with app.state.database.session() as session:
        loaded = await session.get(Event, event.id)
        loaded.organization_id = "org_none"  # no such organization
        with pytest.raises(IntegrityError) as raised:
            await session.flush()
        assert "parameters hidden" in str(raised.value)
        await session.rollback()
    async with app.state.database.session() as session:
        assert (await session.get(Event, event.id)).organization_id == tenant.organization_id


async def test_a_refused_change_in_a_savepoint_leaves_the_outer_one(app, tenant):
    kept, refused = _event(tenant.organization_id), _event(tenant.organization_id)
    await _stored(app, kept, refused)
    async with app.state.database.session() as session, session.begin():
        (await session.get(Event, kept.id)).dispatched_at = LATER
        await session.flush()
        with pytest.raises(IntegrityError):
            async with session.begin_nested():
                (await session.get(Event, refused.id)).organization_id = "org_none"
                await session.flush()
    async with app.state.database.session() as session:
        assert (await session.get(Event, kept.id)).dispatched_at == LATER
        assert (await session.get(Event, refused.id)).organization_id == tenant.organization_id
