"""The bare app of `make bench --only mix`: Starlette + asyncpg doing the SQL Corridor's
create+submit and reads do, on Corridor's own tables, with nothing else around it.

What it keeps of Corridor: the key looked up by its SHA-256 (api_keys), the customer, the
source balance account and the customer's bank account read in the same statement as the
key, the guarded hold on the balance (available ≥ amount, the row locked to the commit),
the transfer with its two legs and its two events (`transfer.created`,
`transfer.pending`, the transfer's JSON as their data) written in that one statement,
the answer serialised once. What it leaves out: scopes beyond one check, planning, fees,
flows other than a USD balance to a US bank account by ACH, idempotency, rate limits,
middleware, validation beyond the few checks below. It is the floor an application on
this stack can reach for the same rows; Corridor's figures are read as a fraction of it.

GET one transfer and the list of 20 read the key and the rows in one statement each and
answer the same JSON shape Corridor's transfer resource has (the fields a client reads).

Run as `python -m benchmarks.bare_app --port P --processes N` with BARE_APP_DSN naming the
database (a plain postgresql:// DSN); `corridor serve`'s way: uvicorn with uvloop and
httptools, N processes sharing the port.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import secrets
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import asyncpg
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

_CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"


def new_id(prefix: str) -> str:
    """A time-ordered id like Corridor's: 10 characters of milliseconds, 16 random."""
    number = (int(time.time() * 1000) << 80) | secrets.randbits(80)
    characters = []
    for _ in range(26):
        characters.append(_CROCKFORD[number & 31])
        number >>= 5
    return f"{prefix}_{''.join(reversed(characters))}"


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _amount(currency: str, minor: int) -> dict[str, Any]:
    return {
        "currency": currency,
        "exponent": 2,
        "value": str(minor),
        "displayValue": f"{minor // 100}.{minor % 100:02d}",
    }


def _error(status: int, code: str, message: str) -> Response:
    return Response(
        json.dumps({"code": code, "message": message}),
        status_code=status,
        media_type="application/json",
    )


def _secret_hash(request: Request) -> str | None:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token:
        return None
    return hashlib.sha256(token.strip().encode()).hexdigest()


_READ_FOR_SUBMIT = """
SELECT k.id AS key_id, k.organization_id, k.scopes, k.revoked_at,
       c.id AS customer_id, c.status AS customer_status, c.name AS customer_name,
       a.id AS account_id, a.customer_id AS account_customer_id, a.currency AS account_currency,
       e.id AS external_id, e.customer_id AS external_customer_id, e.status AS external_status,
       e.currency AS external_currency, e.country AS external_country,
       e.account_holder_name AS external_name
FROM api_keys AS k
LEFT JOIN customers AS c ON c.organization_id = k.organization_id AND c.id = $2
LEFT JOIN ledger_accounts AS a
  ON a.organization_id = k.organization_id AND a.kind = 'CUSTOMER_BALANCE' AND a.id = $3
LEFT JOIN external_accounts AS e ON e.organization_id = k.organization_id AND e.id = $4
WHERE k.secret_hash = $1
"""

_TRANSFER_COLUMNS = (
    "id, organization_id, customer_id, flow, status, source_request, destination_request, "
    "source, destination, source_account_id, source_currency, source_amount, "
    "destination_currency, destination_amount, is_third_party, document_ids, funding_needed, "
    "hold_account_id, hold_amount, current_leg_index, metadata, created_by, submitted_by, "
    "submitted_at, next_step_at, created_at, updated_at"
)
_LEG_COLUMNS = (
    "id, organization_id, transfer_id, sequence, type, status, input_currency, "
    "output_currency, input_rail, output_rail, input_amount, output_amount, rail_attempts, "
    "created_at, updated_at"
)
_EVENT_COLUMNS = "id, organization_id, type, data, tags, created_at"

# One statement, one transaction: the guarded hold, and only when it held, the transfer,
# its legs and its events.
_WRITE = f"""
WITH hold AS (
  UPDATE ledger_accounts
  SET pending_debits = pending_debits + $1::BIGINT, updated_at = $2::TIMESTAMPTZ
  WHERE id = $3::VARCHAR AND organization_id = $4::VARCHAR AND status = 'OPEN'
    AND (allow_negative OR posted_balance - pending_debits >= $1::BIGINT)
  RETURNING id
), new_transfer AS (
  INSERT INTO transfers ({_TRANSFER_COLUMNS})
  SELECT $5::VARCHAR, $4::VARCHAR, $6::VARCHAR, 'FIAT_TO_FIAT', 'PENDING', $7::JSONB, $8::JSONB,
         $9::JSONB, $10::JSONB, $3::VARCHAR, 'USD', $1::BIGINT, 'USD', $1::BIGINT, FALSE,
         '[]'::JSONB, FALSE, $3::VARCHAR, $1::BIGINT, 0, '{{}}'::JSONB, $11::VARCHAR,
         $11::VARCHAR, $2::TIMESTAMPTZ, $2::TIMESTAMPTZ, $2::TIMESTAMPTZ, $2::TIMESTAMPTZ
  FROM hold
  RETURNING id
), new_legs AS (
  INSERT INTO transfer_legs ({_LEG_COLUMNS})
  SELECT leg.id, $4::VARCHAR, new_transfer.id, leg.sequence, leg.type, 'PENDING', 'USD', 'USD',
         'BOOK', leg.output_rail, $1::BIGINT, $1::BIGINT, 0, $2::TIMESTAMPTZ, $2::TIMESTAMPTZ
  FROM new_transfer,
       (VALUES ($12::VARCHAR, 0, 'DEBIT_BALANCE', 'BOOK'), ($13::VARCHAR, 1, 'PAYOUT_FIAT', 'ACH'))
         AS leg (id, sequence, type, output_rail)
), new_events AS (
  INSERT INTO events ({_EVENT_COLUMNS})
  SELECT event.id, $4::VARCHAR, event.type, $14::JSONB, $15::JSONB, $2::TIMESTAMPTZ
  FROM new_transfer,
       (VALUES ($16::VARCHAR, 'transfer.created'), ($17::VARCHAR, 'transfer.pending'))
         AS event (id, type)
)
SELECT EXISTS (SELECT 1 FROM hold)
"""

_LEGS_OF = """
(SELECT coalesce(json_agg(json_build_object(
   'id', l.id, 'sequence', l.sequence, 'type', l.type, 'status', l.status,
   'input_currency', l.input_currency, 'output_currency', l.output_currency,
   'input_rail', l.input_rail, 'output_rail', l.output_rail,
   'input_amount', l.input_amount, 'output_amount', l.output_amount,
   'started_at', l.started_at, 'completed_at', l.completed_at) ORDER BY l.sequence), '[]')
 FROM transfer_legs AS l WHERE l.transfer_id = t.id) AS legs
"""

_TRANSFER_FIELDS = (
    "t.id, t.organization_id, t.customer_id, t.flow, t.status, t.source, t.destination, "
    "t.source_currency, t.source_amount, t.destination_currency, t.destination_amount, "
    "t.funding_needed, t.agent_id, t.agent_approval_status, t.returned_to_account_id, "
    "t.current_leg_index, t.is_third_party, t.document_ids, t.estimated_settlement_at, "
    "t.next_cutoff_at, t.cutoff_timezone, t.created_at, t.updated_at"
)

_GET_ONE = f"""
SELECT k.revoked_at, {_TRANSFER_FIELDS}, {_LEGS_OF}
FROM api_keys AS k
LEFT JOIN transfers AS t ON t.organization_id = k.organization_id AND t.id = $2
WHERE k.secret_hash = $1
"""

_LIST = f"""
SELECT k.revoked_at, {_TRANSFER_FIELDS}, {_LEGS_OF}
FROM api_keys AS k
LEFT JOIN LATERAL (
  SELECT * FROM transfers AS t WHERE t.organization_id = k.organization_id
  ORDER BY t.id DESC LIMIT $2
) AS t ON TRUE
WHERE k.secret_hash = $1
ORDER BY t.id DESC
"""


def _leg_json(leg: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": leg["id"],
        "sequence": leg["sequence"],
        "type": leg["type"],
        "inputCurrency": leg["input_currency"],
        "outputCurrency": leg["output_currency"],
        "inputRail": leg["input_rail"],
        "outputRail": leg["output_rail"],
        "inputAmount": _amount(leg["input_currency"], leg["input_amount"]),
        "outputAmount": _amount(leg["output_currency"], leg["output_amount"]),
        "status": leg["status"],
        "startedAt": leg["started_at"],
        "completedAt": leg["completed_at"],
    }


def _decoded(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _row_json(row: asyncpg.Record) -> dict[str, Any]:
    """The transfer resource from a read's row (the fields Corridor's answer has)."""
    return {
        "id": row["id"],
        "organizationId": row["organization_id"],
        "sourceCustomerId": row["customer_id"],
        "flow": row["flow"],
        "status": row["status"],
        "source": _decoded(row["source"]),
        "destination": _decoded(row["destination"]),
        "sourceAmount": _amount(row["source_currency"], row["source_amount"]),
        "destinationAmount": _amount(row["destination_currency"], row["destination_amount"]),
        "createdAt": _iso(row["created_at"]),
        "updatedAt": _iso(row["updated_at"]),
        "legs": [_leg_json(leg) for leg in _decoded(row["legs"])],
        "fundingNeeded": row["funding_needed"],
        "agentId": row["agent_id"],
        "agentApprovalStatus": row["agent_approval_status"],
        "developerFee": None,
        "returnedToAccountId": row["returned_to_account_id"],
        "currentLegIndex": row["current_leg_index"],
        "isThirdParty": row["is_third_party"],
        "documentIds": _decoded(row["document_ids"]),
        "estimatedSettlementAt": _iso(row["estimated_settlement_at"]),
        "nextCutoffAt": _iso(row["next_cutoff_at"]),
        "cutoffTimezone": row["cutoff_timezone"],
    }


class Bare:
    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.pool: asyncpg.Pool | None = None

    async def start(self) -> None:
        async def jsonb(connection: asyncpg.Connection) -> None:
            for kind in ("json", "jsonb"):
                await connection.set_type_codec(
                    kind, encoder=json.dumps, decoder=json.loads, schema="pg_catalog"
                )

        self.pool = await asyncpg.create_pool(self.dsn, min_size=2, max_size=16, init=jsonb)

    async def stop(self) -> None:
        if self.pool is not None:
            await self.pool.close()

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        await self.start()
        try:
            yield
        finally:
            await self.stop()

    async def create_transfer(self, request: Request) -> Response:
        secret_hash = _secret_hash(request)
        if secret_hash is None:
            return _error(401, "unauthorized", "Missing credentials")
        try:
            body = json.loads(await request.body())
            customer_id = body["customerId"]
            account_id = body["source"]["accountId"]
            destination = body["destination"]
            external_id = destination["externalAccountId"]
            amount = int(body["amount"]["value"])
        except (ValueError, KeyError, TypeError):
            return _error(422, "validation_error", "Not a create+submit this app knows")
        if amount <= 0 or body.get("confirm") is not True or body["amount"]["currency"] != "USD":
            return _error(422, "validation_error", "USD, a positive amount, confirm: true")
        assert self.pool is not None
        async with self.pool.acquire() as connection:
            found = await connection.fetchrow(
                _READ_FOR_SUBMIT, secret_hash, customer_id, account_id, external_id
            )
            if found is None or found["revoked_at"] is not None:
                return _error(401, "unauthorized", "Invalid API key")
            if "transfers:write" not in found["scopes"] and "*" not in found["scopes"]:
                if found["scopes"]:
                    return _error(403, "forbidden", "The key lacks transfers:write")
            if found["customer_id"] is None or found["customer_status"] != "ACTIVE":
                return _error(404, "not_found", "No such active customer")
            if found["account_id"] is None or found["account_customer_id"] != customer_id:
                return _error(404, "not_found", "No such balance account of the customer")
            if (
                found["external_id"] is None
                or found["external_customer_id"] != customer_id
                or found["external_status"] != "ACTIVE"
            ):
                return _error(404, "not_found", "No such bank account of the customer")
            now = datetime.now(UTC)
            transfer_id = new_id("tfr")
            leg_ids = [new_id("tleg"), new_id("tleg")]
            source = {
                "currency": "USD",
                "paymentRail": "BOOK",
                "fundingCurrency": "USD",
                "accountId": account_id,
                "accountType": "BALANCE",
                "accountName": found["customer_name"],
            }
            target = {
                "currency": "USD",
                "paymentRail": destination.get("paymentRail", "ACH"),
                "accountType": "EXTERNAL_BANK",
                "externalAccountId": external_id,
                "accountName": found["external_name"],
                "bankCountryCode": found["external_country"],
            }
            legs = [
                {
                    "id": leg_id,
                    "sequence": sequence,
                    "type": kind,
                    "input_currency": "USD",
                    "output_currency": "USD",
                    "input_rail": "BOOK",
                    "output_rail": rail,
                    "input_amount": amount,
                    "output_amount": amount,
                    "status": "PENDING",
                    "started_at": None,
                    "completed_at": None,
                }
                for leg_id, sequence, kind, rail in (
                    (leg_ids[0], 0, "DEBIT_BALANCE", "BOOK"),
                    (leg_ids[1], 1, "PAYOUT_FIAT", "ACH"),
                )
            ]
            resource = {
                "id": transfer_id,
                "organizationId": found["organization_id"],
                "sourceCustomerId": customer_id,
                "flow": "FIAT_TO_FIAT",
                "status": "PENDING",
                "source": source,
                "destination": target,
                "sourceAmount": _amount("USD", amount),
                "destinationAmount": _amount("USD", amount),
                "createdAt": _iso(now),
                "updatedAt": _iso(now),
                "legs": [_leg_json(leg) for leg in legs],
                "fundingNeeded": False,
                "agentId": None,
                "agentApprovalStatus": None,
                "developerFee": None,
                "returnedToAccountId": None,
                "currentLegIndex": 0,
                "isThirdParty": False,
                "documentIds": [],
            }
            held = await connection.fetchval(
                _WRITE,
                amount,
                now,
                account_id,
                found["organization_id"],
                transfer_id,
                customer_id,
                {"accountId": account_id},
                {key: value for key, value in destination.items() if key != "accountId"},
                source,
                target,
                found["key_id"],
                leg_ids[0],
                leg_ids[1],
                resource,
                [customer_id, transfer_id],
                new_id("msg"),
                new_id("msg"),
            )
        if not held:
            return _error(422, "insufficient_funds", "The balance does not cover the amount")
        return Response(json.dumps(resource), status_code=201, media_type="application/json")

    async def get_transfer(self, request: Request) -> Response:
        secret_hash = _secret_hash(request)
        if secret_hash is None:
            return _error(401, "unauthorized", "Missing credentials")
        assert self.pool is not None
        async with self.pool.acquire() as connection:
            row = await connection.fetchrow(_GET_ONE, secret_hash, request.path_params["id"])
        if row is None or row["revoked_at"] is not None:
            return _error(401, "unauthorized", "Invalid API key")
        if row["id"] is None:
            return _error(404, "not_found", "No such transfer")
        return Response(json.dumps(_row_json(row)), media_type="application/json")

    async def list_transfers(self, request: Request) -> Response:
        secret_hash = _secret_hash(request)
        if secret_hash is None:
            return _error(401, "unauthorized", "Missing credentials")
        try:
            limit = int(request.query_params.get("limit", "50"))
        except ValueError:
            return _error(422, "validation_error", "limit: not a number")
        if not 1 <= limit <= 250:
            return _error(422, "validation_error", "limit: 1 to 250")
        assert self.pool is not None
        async with self.pool.acquire() as connection:
            rows = await connection.fetch(_LIST, secret_hash, limit + 1)
        if not rows or rows[0]["revoked_at"] is not None:
            return _error(401, "unauthorized", "Invalid API key")
        items = [_row_json(row) for row in rows if row["id"] is not None]
        more = len(items) > limit
        items = items[:limit]
        page = {
            "data": items,
            "nextCursor": items[-1]["id"] if more and items else None,
            "hasMore": more,
        }
        return Response(json.dumps(page), media_type="application/json")


async def health(request: Request) -> Response:
    return Response('{"status":"ok"}', media_type="application/json")


def create_app() -> Starlette:
    bare = Bare(os.environ["BARE_APP_DSN"])
    return Starlette(
        routes=[
            Route("/v1/health", health),
            Route("/v1/transfers", bare.create_transfer, methods=["POST"]),
            Route("/v1/transfers", bare.list_transfers, methods=["GET"]),
            Route("/v1/transfers/{id}", bare.get_transfer, methods=["GET"]),
        ],
        lifespan=bare.lifespan,
    )


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(prog="python -m benchmarks.bare_app")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    arguments = parser.parse_args()
    uvicorn.run(
        "benchmarks.bare_app:create_app",
        factory=True,
        host="127.0.0.1",
        port=arguments.port,
        workers=arguments.processes,
        loop="auto",
        http="auto",
        log_level="warning",
        access_log=False,
    )


if __name__ == "__main__":
    main()
