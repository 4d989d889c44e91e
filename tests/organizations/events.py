"""Reading the outbox in tests: the events an organization's changes wrote."""

from __future__ import annotations

from sqlalchemy import select

from corridor.models.event import Event


async def events_of(app, organization_id: str, event_type: str) -> list[Event]:
    """The organization's events of one type, oldest first."""
    async with app.state.database.session(write=False) as session:
        statement = (
            select(Event)
            .where(Event.organization_id == organization_id, Event.type == event_type)
            .order_by(Event.id)
        )
        return list((await session.execute(statement)).scalars())
