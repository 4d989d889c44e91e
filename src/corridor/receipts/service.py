"""Issuing receipts in the transaction of the decision they state, reading them, the JWKS.

Hooks: `agents/enforcement.py` (AUTHORIZED, an agent key's submit that is let through),
`agents/approvals.py` (APPROVED, DECLINED), and `FinalStatusReceipts`, the watcher of
`transfers/lifecycle.set_status` installed by the composition root (COMPLETED, FAILED,
RETURNED of a transfer that carries an agent).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.auth.scopes import Scope
from corridor.kit.ids import new_id
from corridor.kit.money import amount_object
from corridor.models.receipt import ReceiptSigningKey, TransferReceipt
from corridor.models.transfer import Transfer
from corridor.receipts import repository, rules, signing
from corridor.receipts.rules import ReceiptKind
from corridor.transfers import lifecycle

default_issuer = "http://127.0.0.1:8000"
_issuer: str | None = None


def install_issuer(public_base_url: str | None, *, host: str, port: int) -> None:
    """The `iss` of every receipt this process signs: the configured public base URL
    (`CORRIDOR_PUBLIC_BASE_URL`), else the address the server listens on."""
    global _issuer
    _issuer = (public_base_url or f"http://{host}:{port}").rstrip("/")


def issuer() -> str:
    return _issuer or default_issuer


def payload_of(transfer: Transfer, kind: ReceiptKind, *, now: datetime) -> dict[str, Any]:
    """API.md 9: what a receipt states about the transfer as it is now."""
    payload: dict[str, Any] = {
        "iss": issuer(),
        "iat": int(now.timestamp()),
        "transferId": transfer.id,
        "agentId": transfer.agent_id,
        # Mandates come with another change (issue 25 item 1): null until transfers carry one.
        "mandateId": getattr(transfer, "mandate_id", None),
        "organizationId": transfer.organization_id,
        "kind": kind.value,
        "status": transfer.status,
        "sourceAmount": amount_object(transfer.source_amount, transfer.source_currency),
        "destinationAmount": amount_object(
            transfer.destination_amount, transfer.destination_currency
        ),
        "payee": rules.payee_of(transfer.destination_request or {}, transfer.counterparty_id),
        "requestHash": rules.request_hash(
            rules.authorised_request(
                transfer_id=transfer.id,
                source_request=transfer.source_request or {},
                destination_request=transfer.destination_request or {},
                source_currency=transfer.source_currency,
                source_amount=transfer.source_amount,
                destination_currency=transfer.destination_currency,
                destination_amount=transfer.destination_amount,
            )
        ),
    }
    rail_ids = {
        "uetr": transfer.uetr,
        "achTraceNumber": transfer.ach_trace_number,
        "imad": transfer.imad,
        "txHash": transfer.tx_hash,
    }
    payload.update({name: value for name, value in rail_ids.items() if value is not None})
    return payload


async def issue(
    session: AsyncSession, *, transfer: Transfer, kind: ReceiptKind, now: datetime
) -> TransferReceipt:
    """Sign a receipt of `transfer` and add it to the caller's transaction."""
    key = await signing.signing_key(session, now=now)
    payload = payload_of(transfer, kind, now=now)
    receipt = TransferReceipt(
        id=new_id("rcpt"),
        organization_id=transfer.organization_id,
        transfer_id=transfer.id,
        kind=kind.value,
        kid=key.kid,
        jws=signing.sign(key, rules.canonical(payload)),
        created_at=now,
    )
    session.add(receipt)
    return receipt


class FinalStatusReceipts:
    """The watcher of transfers/lifecycle.set_status: a receipt at each final status of a
    transfer that carries an agent (rules.final_kind says which)."""

    async def status_changed(
        self, session: AsyncSession, *, transfer: Transfer, previous: str, now: datetime
    ) -> None:
        if transfer.agent_id is None or transfer.submitted_at is None:
            return
        kind = rules.final_kind(previous, transfer.status)
        if kind is not None:
            await issue(session, transfer=transfer, kind=kind, now=now)


async def list_receipts(
    session: AsyncSession, *, caller: Caller, transfer_id: str
) -> list[TransferReceipt]:
    """GET /v1/transfers/{transferId}/receipts: whoever may see the transfer sees them."""
    caller.require_scope(Scope.TRANSFERS_READ)
    transfer = await lifecycle.get_transfer(session, caller=caller, transfer_id=transfer_id)
    return await repository.receipts_of(session, transfer.id)


async def jwks(session: AsyncSession) -> dict[str, Any]:
    """GET /.well-known/jwks.json: every key, the active one first, public parts only."""
    return signing.jwks_of(await repository.public_jwks(session))


async def rotate_key(session: AsyncSession, *, now: datetime) -> ReceiptSigningKey:
    """`corridor receipts rotate-key`: the service's keys are its operator's, so only the
    command (run where the database is) rotates them; no API does."""
    return await signing.rotate(session, now=now)


def verify(token: str, jwks_document: dict[str, Any]) -> dict[str, Any]:
    return signing.verify(token, jwks_document)


def tokens_in(text: str) -> list[str]:
    """The receipts in a file: one compact JWS, or the JSON of the receipts endpoint
    (`{"data": [{"jws": …}]}`), or a list of such items."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return [stripped]
    document = json.loads(stripped)
    items = document.get("data", [document]) if isinstance(document, dict) else document
    return [item["jws"] for item in items if isinstance(item, dict) and "jws" in item]
