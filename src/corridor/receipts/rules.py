"""Pure: what a receipt says (its payload), the request hash, the receipt kinds."""

from __future__ import annotations

import hashlib
from enum import StrEnum
from typing import Any

import rfc8785

ALG = "EdDSA"
KEY_ACTIVE = "active"
KEY_RETIRED = "retired"
# How long clients and caches may keep the JWKS.
JWKS_MAX_AGE_S = 300


class ReceiptKind(StrEnum):
    AUTHORIZED = "AUTHORIZED"
    APPROVED = "APPROVED"
    DECLINED = "DECLINED"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    RETURNED = "RETURNED"


def final_kind(previous: str, target: str) -> ReceiptKind | None:
    """The receipt a move to a final status gives: COMPLETED, FAILED, and RETURNED for a
    completed payout sent back (COMPLETED → REVERSED). A cancel gives none (the owner's
    decline has its own DECLINED receipt), nor a refund before payout."""
    if target == "COMPLETED":
        return ReceiptKind.COMPLETED
    if target == "FAILED":
        return ReceiptKind.FAILED
    if target == "REVERSED" and previous == "COMPLETED":
        return ReceiptKind.RETURNED
    return None


def canonical(value: Any) -> bytes:
    """RFC 8785 (JCS) canonical JSON."""
    return rfc8785.dumps(value)


def request_hash(authorised: dict[str, Any]) -> str:
    return "sha256:" + hashlib.sha256(canonical(authorised)).hexdigest()


def minor(currency: str, value: int) -> dict[str, str]:
    return {"currency": currency, "value": str(value)}


def authorised_request(
    *,
    transfer_id: str,
    source_request: dict[str, Any],
    destination_request: dict[str, Any],
    source_currency: str,
    source_amount: int,
    destination_currency: str,
    destination_amount: int,
) -> dict[str, Any]:
    """What a receipt's requestHash is taken over (docs/decisions.md): the transfer's id,
    its source and destination as the client asked for them, and both amounts in minor
    units. It is what is paid, from where and to whom; the fields that do not change what
    is paid (remarks, metadata) stay out."""
    return {
        "transferId": transfer_id,
        "source": source_request,
        "destination": destination_request,
        "sourceAmount": minor(source_currency, source_amount),
        "destinationAmount": minor(destination_currency, destination_amount),
    }


def payee_of(destination_request: dict[str, Any], counterparty_id: str | None) -> dict[str, Any]:
    """The payee as an agent's allowlist names it: the external account or wallet (or the
    balance account) paid, and the counterparty it belongs to."""
    payee: dict[str, Any] = {"type": None, "id": None, "counterpartyId": counterparty_id}
    external = destination_request.get("externalAccountId")
    if external:
        wallet = str(external).startswith("ewa_")
        payee["type"] = "external_wallet" if wallet else "external_account"
        payee["id"] = external
    elif destination_request.get("accountId"):
        payee["type"] = "account"
        payee["id"] = destination_request["accountId"]
    return payee
