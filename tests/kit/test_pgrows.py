"""Hand-written PostgreSQL statements keep to the models (kit/pgrows.py): a row inserted
from a RowShape reads back through the ORM exactly as the instance said, with the columns
it left None at their Python-side defaults, and a row read into a RowShape instance holds
what the ORM loads."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from corridor.kit.ids import new_id
from corridor.kit.pgrows import RowShape
from corridor.models.event import Event
from corridor.models.ledger import LedgerAccount
from tests.transfers.conftest import make_customer

AT = datetime(2026, 11, 26, 9, 15, 30, 123456, tzinfo=UTC)


@pytest.fixture
def postgresql_only(backend):
    if backend != "postgresql":
        pytest.skip("hand-written statements run on PostgreSQL's driver")


def _columns(shape: RowShape, instance: object) -> dict[str, object]:
    return {key: getattr(instance, key) for key, _ in shape.fields}


async def test_a_row_inserted_from_a_shape_reads_back_as_the_orm_wrote_it(
    app, tenant, postgresql_only
):
    shape = RowShape(Event)
    event = Event(
        id=new_id("msg"),
        organization_id=tenant.organization_id,
        type="transfer.created",
        data={"id": "tfr_x", "amount": {"value": "12550"}, "note": "naïve ✓"},
        created_at=AT,
    )  # tags and dispatched_at left unset: tags takes its default, []
    async with app.state.database.engine.connect() as connection:
        raw = await connection.get_raw_connection()
        await raw.driver_connection.execute(shape.insert_rows(1, 1), *shape.values(event))
    async with app.state.database.session(write=False) as session:
        stored = await session.get(Event, event.id)
    assert stored is not None
    assert _columns(shape, stored) == {**_columns(shape, event), "tags": []}


async def test_a_row_read_into_a_shape_holds_what_the_orm_loads(app, tenant, postgresql_only):
    customer = await make_customer(tenant.client, ("USD",))
    await customer.fund("USD", 4_200)
    shape = RowShape(LedgerAccount)
    statement = f'SELECT {shape.select_list("a")} FROM "{shape.table}" AS a WHERE a.id = $1'
    async with app.state.database.engine.connect() as connection:
        raw = await connection.get_raw_connection()
        row = await raw.driver_connection.fetchrow(statement, customer.accounts["USD"])
    read = shape.instance(row, "a")
    async with app.state.database.session(write=False) as session:
        loaded = (
            await session.execute(
                select(LedgerAccount).where(LedgerAccount.id == customer.accounts["USD"])
            )
        ).scalar_one()
    assert _columns(shape, read) == _columns(shape, loaded)
    assert read.posted_balance == 4_200
    assert read.updated_at.tzinfo is not None
    nothing = {f"a__{name}": None for name in shape.columns}
    assert shape.instance(nothing, "a") is None  # an outer join that found no row
