"""SQLAlchemy tables, one module per aggregate; importing this package registers them all."""

from corridor.models import (  # noqa: F401  (register their tables)
    assistant,
    audit,
    bank_file,
    clock,
    confirmation,
    document,
    evm,
    mandate,
    mcp,
    oauth,
    operations,
    party,
    receipt,
    reconciliation,
    request_log,
    signing,
    transfer,
    webhook,
)
from corridor.models.access import ApiKey, ConsoleSession, ConsoleUser, PlatformSession
from corridor.models.customer import (
    AssociatedEntity,
    Customer,
    EnhancedDiligenceRfi,
    TermsOfServiceAcceptance,
    VerificationSession,
)
from corridor.models.event import Event
from corridor.models.idempotency import IdempotencyRecord
from corridor.models.ledger import JournalEntry, LedgerAccount, Posting
from corridor.models.organization import Organization

__all__ = [
    "ApiKey",
    "AssociatedEntity",
    "ConsoleSession",
    "ConsoleUser",
    "Customer",
    "EnhancedDiligenceRfi",
    "Event",
    "IdempotencyRecord",
    "JournalEntry",
    "LedgerAccount",
    "Organization",
    "PlatformSession",
    "Posting",
    "TermsOfServiceAcceptance",
    "VerificationSession",
]
