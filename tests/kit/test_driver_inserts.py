"""A flush's new rows (kit/prepared.py's DriverSession: on the driver on PostgreSQL, the
ORM's flush on SQLite) are the rows the ORM's own flush writes, with its defaults, order,
errors and rollbacks."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import Text, cast, func, inspect, select
from sqlalchemy.exc import IntegrityError, PendingRollbackError
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit.ids import new_id
from corridor.models.event import Event
from corridor.models.signing import SignatureNonce
from corridor.models.transfer import Transfer, TransferLeg
from corridor.models.webhook import WebhookDelivery, WebhookEndpoint
from tests.transfers.conftest import make_customer

AT = datetime(2026, 11, 28, 21, 30, 15, 250000, tzinfo=UTC)


def _event(organization_id: str, **values: Any) -> Event:
    return Event(
        id=new_id("msg"),
        organization_id=organization_id,
        type="test.inserted",
        data={"amount": {"value": "12550"}, "big": 2**70, "note": "naïve ✓"},
        created_at=AT,
        trace_context=None,  # None given; tags and dispatched_at not given at all
        **values,
    )


def _endpoint(organization_id: str) -> WebhookEndpoint:
    return WebhookEndpoint(
        id=new_id("ep"),
        organization_id=organization_id,
        url="https://example.com/hooks",
        description=None,
        secret="whsec_dGVzdC1zZWNyZXQ=",  # encrypted at rest
        created_at=AT,
        updated_at=AT,
    )


def _transfer(organization_id: str, customer_id: str) -> Transfer:
    return Transfer(
        id=new_id("tfr"),
        organization_id=organization_id,
        customer_id=customer_id,
        flow="BALANCE_TO_BANK",
        status="DRAFT",
        source_request={"accountId": "acc_1"},
        destination_request={},
        source={},
        destination={},
        source_currency="USD",
        source_amount=12550,
        destination_currency="USD",
        destination_amount=12550,
        developer_fee_request=None,  # JSON null, not SQL NULL (the ORM's rule for JSON)
        created_by="key_test",
        created_at=AT,
        updated_at=AT,
    )  # refund, deposit_instructions (JSON) not given: SQL NULL; metadata_: its default


def _leg(transfer: Transfer) -> TransferLeg:
    return TransferLeg(
        id=new_id("tleg"),
        organization_id=transfer.organization_id,
        transfer_id=transfer.id,
        sequence=0,
        type="PAYOUT",
        status="PENDING",
        input_currency="USD",
        output_currency="USD",
        input_rail="BALANCE",
        output_rail="ACH",
        input_amount=12550,
        output_amount=12550,
        created_at=AT,
        updated_at=AT,
    )


def _orm_session(app) -> AsyncSession:
    """A session of SQLAlchemy's own Session class: the ORM's flush, to compare with."""
    return AsyncSession(app.state.database.engine, expire_on_commit=False)


async def _stored_columns(session: AsyncSession, instance: Any) -> list[tuple[Any, ...]]:
    """Each column as the database holds it: whether it is NULL, and its text (JSON `null`
    is text, SQL NULL is not); the id left out, encrypted text left to `_read_back`."""
    table = inspect(type(instance)).local_table
    columns = [
        column
        for column in table.columns
        if column.name != "id" and "Encrypted" not in type(column.type).__name__
    ]
    selected = [part for column in columns for part in (column.is_(None), cast(column, Text))]
    row = (await session.execute(select(*selected).where(table.c.id == instance.id))).one()
    return [(column.name, row[2 * i], row[2 * i + 1]) for i, column in enumerate(columns)]


def _attributes(instance: Any) -> dict[str, Any]:
    mapper = inspect(type(instance))
    return {
        prop.key: getattr(instance, prop.key) for prop in mapper.column_attrs if prop.key != "id"
    }


async def _both_ways(app, make) -> tuple[Any, Any]:
    """The same row written by kit.db's session and by the ORM's flush; each compared."""
    ours, orms = make(), make()
    async with app.state.database.session() as session, session.begin():
        session.add(ours)
    async with _orm_session(app) as session, session.begin():
        session.add(orms)
    assert _attributes(ours) == _attributes(orms)  # the defaults kept on the instance
    async with app.state.database.session() as session:
        assert await _stored_columns(session, ours) == await _stored_columns(session, orms)
        read_ours = _attributes(await session.get(type(ours), ours.id))
        read_orms = _attributes(await session.get(type(orms), orms.id))
    assert read_ours == read_orms
    return ours, orms


async def test_an_event_is_written_as_the_orm_writes_it(app, tenant):
    ours, _ = await _both_ways(app, lambda: _event(tenant.organization_id))
    assert ours.tags == [] and ours.dispatched_at is None


async def test_an_encrypted_secret_is_written_as_the_orm_writes_it(app, tenant):
    ours, _ = await _both_ways(app, lambda: _endpoint(tenant.organization_id))
    async with app.state.database.session() as session:
        table = WebhookEndpoint.__table__
        stored = (
            await session.execute(select(cast(table.c.secret, Text)).where(table.c.id == ours.id))
        ).scalar_one()
        assert "whsec_" not in stored  # encrypted at rest
        assert (await session.get(WebhookEndpoint, ours.id)).secret == "whsec_dGVzdC1zZWNyZXQ="


async def test_a_transfers_json_none_and_missing_values_are_the_orms(app, tenant):
    customer = await make_customer(tenant.client)
    ours, _ = await _both_ways(app, lambda: _transfer(tenant.organization_id, customer.id))
    async with app.state.database.session() as session:
        stored = dict((name, null) for name, null, _ in await _stored_columns(session, ours))
    assert stored["developer_fee_request"] is False  # JSON null
    assert stored["refund"] is True and stored["deposit_instructions"] is True  # SQL NULL
    assert ours.metadata_ == {} and ours.is_third_party is False


async def test_a_row_inserted_is_persistent_and_its_later_changes_are_updates(app, tenant):
    event = _event(tenant.organization_id)
    async with app.state.database.session() as session, session.begin():
        session.add(event)
        await session.flush()
        state = inspect(event)
        assert state.persistent and not session.dirty and not session.new
        assert await session.get(Event, event.id) is event  # in the identity map
        event.dispatched_at = AT
        assert session.dirty
    async with app.state.database.session() as session:
        assert (await session.get(Event, event.id)).dispatched_at == AT


async def test_rows_added_children_first_are_written_parents_first_on_the_driver(
    app, tenant, backend
):
    if backend != "postgresql":
        pytest.skip(
            "the ORM's flush orders tables only through relationship()s, which the models "
            "do not declare: code adds parents first, and on SQLite the ORM flushes"
        )
    customer = await make_customer(tenant.client)
    transfer = _transfer(tenant.organization_id, customer.id)
    endpoint, event = _endpoint(tenant.organization_id), _event(tenant.organization_id)
    delivery = WebhookDelivery(
        id=new_id("dlv"),
        organization_id=tenant.organization_id,
        event_id=event.id,
        endpoint_id=endpoint.id,
        status="PENDING",
        due_at=AT,
        created_at=AT,
        updated_at=AT,
    )
    async with app.state.database.session() as session, session.begin():
        session.add_all([_leg(transfer), delivery, event, transfer, endpoint])
    async with app.state.database.session() as session:
        assert (await session.get(WebhookDelivery, delivery.id)).event_id == event.id
        legs = await session.execute(
            select(TransferLeg.id).where(TransferLeg.transfer_id == transfer.id)
        )
        assert len(legs.all()) == 1


async def test_a_rolled_back_insert_leaves_nothing_and_the_instance_transient(app, tenant):
    event = _event(tenant.organization_id)
    async with app.state.database.session() as session:
        session.add(event)
        await session.flush()
        await session.rollback()
        assert inspect(event).transient
    async with app.state.database.session() as session:
        assert await session.get(Event, event.id) is None


async def test_a_duplicate_is_the_orms_integrity_error_and_the_session_must_roll_back(app, tenant):
    first = _event(tenant.organization_id)
    async with app.state.database.session() as session, session.begin():
        session.add(first)
    again = _event(tenant.organization_id)
    again.id = first.id
    async with app.state.database.session() as session:
        session.add(again)
        with pytest.raises(IntegrityError) as raised:
            await session.flush()
        assert "parameters hidden" in str(raised.value)  # no value of a row in a log line
        with pytest.raises(PendingRollbackError):
            await session.execute(select(Event.id).where(Event.id == first.id))
        await session.rollback()
        assert inspect(again).transient
        other = _event(tenant.organization_id)
        session.add(other)
        await session.commit()
    async with app.state.database.session() as session:
        assert await session.get(Event, other.id) is not None


async def test_a_refused_insert_in_a_savepoint_leaves_the_outer_transaction_going(app, tenant):
    first = _event(tenant.organization_id)
    async with app.state.database.session() as session, session.begin():
        session.add(first)
    kept = _event(tenant.organization_id)
    async with app.state.database.session() as session, session.begin():
        session.add(kept)
        await session.flush()
        again = _event(tenant.organization_id)
        again.id = first.id
        with pytest.raises(IntegrityError):
            async with session.begin_nested():
                session.add(again)
                await session.flush()
        later = _event(tenant.organization_id)
        session.add(later)
    async with app.state.database.session() as session:
        assert await session.get(Event, kept.id) is not None
        assert await session.get(Event, later.id) is not None


async def test_a_table_changed_and_inserted_in_one_flush_is_written_in_the_orms_order(app, tenant):
    endpoint = _endpoint(tenant.organization_id)
    async with app.state.database.session() as session, session.begin():
        session.add(endpoint)
    async with app.state.database.session() as session, session.begin():
        held = await session.get(WebhookEndpoint, endpoint.id)
        held.description = "changed"
        added = _endpoint(tenant.organization_id)
        session.add(added)
    async with app.state.database.session() as session:
        assert (await session.get(WebhookEndpoint, endpoint.id)).description == "changed"
        assert await session.get(WebhookEndpoint, added.id) is not None


async def test_a_row_whose_key_the_database_makes_is_written_and_read_back(app, tenant):
    """A table whose id is the database's (a sequence) goes to the ORM's flush, which reads
    the id back; the flush's other rows with it."""
    nonce = SignatureNonce(key_id="key_test", nonce=uuid.uuid4().hex, expires_at=AT)
    event = _event(tenant.organization_id)
    async with app.state.database.session() as session, session.begin():
        session.add_all([nonce, event])
        await session.flush()
        assert isinstance(nonce.id, int)
    async with app.state.database.session() as session:
        assert (await session.get(SignatureNonce, nonce.id)).key_id == "key_test"
        assert await session.get(Event, event.id) is not None


async def test_a_flush_of_many_rows_and_tables_writes_each_row_once(app, tenant):
    customer = await make_customer(tenant.client)
    transfer = _transfer(tenant.organization_id, customer.id)
    legs = [_leg(transfer) for _ in range(3)]
    for sequence, leg in enumerate(legs):
        leg.sequence = sequence
    events = [_event(tenant.organization_id) for _ in range(5)]
    async with app.state.database.session() as session, session.begin():
        session.add_all([transfer, *legs, *events])
    async with app.state.database.session() as session:
        stored = await session.execute(
            select(TransferLeg.id, TransferLeg.sequence)
            .where(TransferLeg.transfer_id == transfer.id)
            .order_by(TransferLeg.sequence)
        )
        assert [tuple(row) for row in stored] == [(leg.id, leg.sequence) for leg in legs]
        found = await session.execute(
            select(Event.id).where(Event.id.in_([event.id for event in events]))
        )
        assert sorted(found.scalars()) == sorted(event.id for event in events)


async def test_a_flush_of_more_values_than_a_statement_takes_is_written_whole(app, tenant):
    """PostgreSQL takes 32,767 values in a statement: 4,500 events of 8 columns are more."""
    events = [_event(tenant.organization_id) for _ in range(4_500)]
    async with app.state.database.session() as session, session.begin():
        session.add_all(events)
    async with app.state.database.session() as session:
        counted = await session.execute(
            select(func.count()).where(Event.id.in_([event.id for event in events]))
        )
        assert counted.scalar_one() == len(events)
