"""Helpers of the operations tests: a funded payer, reading /metrics as Prometheus does."""

from __future__ import annotations

import re
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.support import active_customer

# Corridor's ids: a prefix and a ULID (kit/ids.py).
ID = re.compile(r"[a-z]+_[0-9a-hjkmnp-tv-z]{26}", re.IGNORECASE)


async def payer(client: httpx.AsyncClient, *, rail: str = "ACH") -> dict[str, Any]:
    """A create+submit body: an ACTIVE customer's funded USD balance to its own bank
    account (the express create+submit's case on PostgreSQL)."""
    customer = await active_customer(client)
    accounts = (await client.get(f"/v1/customers/{customer['id']}/accounts")).json()["data"]
    account = next(item for item in accounts if item["currency"] == "USD")
    funded = await client.post(
        f"/v1/sandbox/accounts/{account['id']}/fund",
        json={"amount": {"currency": "USD", "value": "1000000"}},
    )
    assert funded.status_code == 200, funded.text
    external = await client.post(
        "/v1/external-accounts",
        json={
            "customerId": customer["id"],
            "currency": "USD",
            "country": "US",
            "accountHolderName": "Metrics Payee",
            "accountNumber": "000123456789",
            "routingNumber": "021000021",
        },
    )
    assert external.status_code == 201, external.text
    return {
        "customerId": customer["id"],
        "source": {"accountId": account["id"]},
        "destination": {
            "externalAccountId": external.json()["id"],
            "paymentRail": rail,
            "currency": "USD",
        },
        "amount": {"currency": "USD", "value": "100"},
        "confirm": True,
    }


def samples(text: str) -> list[tuple[str, dict[str, str], float]]:
    """Every sample of a Prometheus text answer: (name, labels, value)."""
    return [
        (sample.name, dict(sample.labels), sample.value)
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    ]


def value(text: str, name: str, **labels: str) -> float:
    """The sum of the samples of `name` whose labels include `labels` (0 when none)."""
    return sum(
        found
        for sample_name, sample_labels, found in samples(text)
        if sample_name == name and all(sample_labels.get(k) == v for k, v in labels.items())
    )


def labels_holding_ids(text: str) -> list[tuple[str, str, str]]:
    return [
        (name, key, label)
        for name, labels, _ in samples(text)
        for key, label in labels.items()
        if ID.search(label)
    ]
