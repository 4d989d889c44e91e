"""Helpers of the parties tests: counterparties, external accounts and wallets made over HTTP."""

from __future__ import annotations

from typing import Any

import httpx

ADDRESS = {
    "addressLine1": "Straße 5",
    "addressLine2": "Hinterhaus",
    "city": "Zürich",
    "state": "ZH",
    "postalCode": "8001",
    "country": "CH",
}
US_ACCOUNT = {
    "currency": "USD",
    "country": "US",
    "accountHolderName": "Ada Lovelace",
    "accountNumber": "000123456789",
    "routingNumber": "021000021",
}
SEPA_ACCOUNT = {
    "currency": "EUR",
    "country": "DE",
    "accountHolderName": "Müller Maschinenbau GmbH",
    "iban": "DE89370400440532013000",
}
# EIP-55's own examples: a mixed-case address with a correct checksum.
EVM_ADDRESS = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
SOLANA_ADDRESS = "So11111111111111111111111111111111111111112"
TRON_ADDRESS = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"


async def create_counterparty(
    client: httpx.AsyncClient, customer_id: str, **overrides: Any
) -> dict:
    body: dict[str, Any] = {
        "customerId": customer_id,
        "name": "Müller Maschinenbau GmbH",
        "beneficiaryType": "BUSINESS",
        "address": ADDRESS,
        "email": "ap@mueller.example",
    }
    body.update(overrides)
    response = await client.post("/v1/counterparties", json=body)
    assert response.status_code == 201, response.text
    return response.json()


async def create_account(
    client: httpx.AsyncClient, owner: dict[str, str], **overrides: Any
) -> dict:
    """`owner` is {"customerId": …} or {"counterpartyId": …}; a US account unless the
    overrides carry an IBAN; an override of None leaves that field out."""
    base = {} if "iban" in overrides else US_ACCOUNT
    body = {
        key: value for key, value in {**base, **owner, **overrides}.items() if value is not None
    }
    response = await client.post("/v1/external-accounts", json=body)
    assert response.status_code == 201, response.text
    return response.json()


async def create_wallet(client: httpx.AsyncClient, owner: dict[str, str], **overrides: Any) -> dict:
    body = {"chain": "ETHEREUM", "address": EVM_ADDRESS, **owner, **overrides}
    response = await client.post("/v1/external-wallets", json=body)
    assert response.status_code == 201, response.text
    return response.json()
