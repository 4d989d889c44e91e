"""The rows the express create+submit reads and writes, shaped from their models."""

from __future__ import annotations

from corridor.kit.pgrows import RowShape
from corridor.models.customer import Customer
from corridor.models.event import Event
from corridor.models.idempotency import IdempotencyRecord
from corridor.models.ledger import LedgerAccount
from corridor.models.party import ExternalAccount
from corridor.models.transfer import Transfer, TransferLeg

CUSTOMER = RowShape(Customer)
ACCOUNT = RowShape(LedgerAccount)
EXTERNAL = RowShape(ExternalAccount)
TRANSFER = RowShape(Transfer)
LEG = RowShape(TransferLeg)
EVENT = RowShape(Event)
KEPT_ANSWER = RowShape(IdempotencyRecord)
