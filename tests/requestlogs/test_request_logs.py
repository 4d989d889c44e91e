"""The request log (issue 28): what a developer sees of their API requests, and what is
never kept."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from corridor.kit.clock import SystemClock
from corridor.models.request_log import RequestLog
from corridor.requestlogs.recorder import prune
from tests.auth.credentials import bearer, console_token, key_secret
from tests.conftest import assert_error, client_for


async def _key_id(tenant, secret: str) -> str:
    keys = (await tenant.client.get("/v1/api-keys", params={"limit": 250})).json()["data"]
    (found,) = [key for key in keys if secret.startswith(key["prefix"])]
    return found["id"]


async def _logs(tenant, **params) -> dict:
    response = await tenant.client.get("/v1/request-logs", params=params)
    assert response.status_code == 200, response.text
    return response.json()


async def test_a_failing_request_shows_its_error_body(tenant):
    failed = await tenant.client.get("/v1/customers/cus_00000000000000000000000000")
    body = assert_error(failed, 404, "not_found")
    request_id = failed.headers["x-request-id"]

    logs = (await _logs(tenant))["data"]
    (row,) = [log for log in logs if log["id"] == request_id]
    assert row["method"] == "GET"
    assert row["path"] == "/v1/customers/cus_00000000000000000000000000"
    assert row["status"] == 404
    assert row["errorCode"] == "not_found"
    assert row["errorBody"] == body
    assert row["credentialKind"] == "organization_key"
    assert row["credentialId"].startswith("key_")
    assert row["latencyMs"] >= 0
    assert row["createdAt"].endswith("Z")

    one = await tenant.client.get(f"/v1/request-logs/{request_id}")
    assert one.status_code == 200, one.text
    assert one.json() == row


async def test_a_success_has_no_error_body_and_keeps_its_idempotency_key(tenant):
    created = await tenant.client.post(
        "/v1/api-keys",
        json={"name": "logged", "scopes": ["customers:read"]},
        headers={"Idempotency-Key": "create-logged-key-1"},
    )
    assert created.status_code == 201, created.text
    row = (await tenant.client.get(f"/v1/request-logs/{created.headers['x-request-id']}")).json()
    assert row["status"] == 201
    assert row["idempotencyKey"] == "create-logged-key-1"
    assert row["errorBody"] is None and row["errorCode"] is None


async def test_no_secret_header_body_or_query_lands_in_the_table(app, tenant):
    secret = await key_secret(tenant, ["customers:write"], name="secretive")
    client = client_for(app, {**bearer(secret), "X-Custom-Secret": "hdr-s3cret-value"})
    async with client:
        answer = await client.post(
            "/v1/customers/individual?token=query-s3cret-value",
            json={"type": "INDIVIDUAL", "email": "body-s3cret@example.com", "nope": 1},
        )
    assert answer.status_code in (400, 422), answer.text
    request_id = answer.headers["x-request-id"]
    await _logs(tenant)  # flushed
    async with app.state.database.session() as session:
        row = (
            await session.execute(select(RequestLog).where(RequestLog.id == request_id))
        ).scalar_one()
    stored = repr({column.key: getattr(row, column.key) for column in RequestLog.__table__.c})
    assert row.path == "/v1/customers/individual"
    assert row.status == answer.status_code
    for never in (secret, secret[12:], "hdr-s3cret-value", "query-s3cret-value", "body-s3cret"):
        assert never not in stored
    assert tenant.secret not in stored


async def test_another_organizations_logs_are_invisible(make_tenant):
    first, second = await make_tenant(), await make_tenant()
    made = await first.client.get("/v1/organizations/current")
    request_id = made.headers["x-request-id"]
    assert request_id in [log["id"] for log in (await _logs(first))["data"]]

    seen = (await _logs(second, limit=250))["data"]
    assert request_id not in [log["id"] for log in seen]
    assert all(log["path"] != "/v1/organizations/current" for log in seen)
    assert_error(await second.client.get(f"/v1/request-logs/{request_id}"), 404, "not_found")


async def test_filters(app, tenant):
    secret = await key_secret(tenant, ["customers:read"], name="reader")
    key_id = await _key_id(tenant, secret)
    async with client_for(app, bearer(secret)) as reader:
        ok = await reader.get("/v1/customers")
        missing = await reader.get("/v1/customers/cus_00000000000000000000000000")
        refused = await reader.post(
            "/v1/api-keys",
            json={"name": "not mine to make", "scopes": ["customers:read"]},
            headers={"Idempotency-Key": "find-me-7"},
        )
    assert (ok.status_code, missing.status_code, refused.status_code) == (200, 404, 403)
    ids = {
        "ok": ok.headers["x-request-id"],
        "missing": missing.headers["x-request-id"],
        "refused": refused.headers["x-request-id"],
    }

    def found(page: dict) -> set[str]:
        return {log["id"] for log in page["data"]}

    by_key = await _logs(tenant, apiKeyId=key_id)
    assert found(by_key) == set(ids.values())
    assert found(await _logs(tenant, apiKeyId=key_id, status="4xx")) == {
        ids["missing"],
        ids["refused"],
    }
    assert found(await _logs(tenant, apiKeyId=key_id, status="404")) == {ids["missing"]}
    assert found(await _logs(tenant, apiKeyId=key_id, status="2xx")) == {ids["ok"]}
    assert found(await _logs(tenant, apiKeyId=key_id, method="POST")) == {ids["refused"]}
    assert found(await _logs(tenant, apiKeyId=key_id, path="/v1/customers/")) == {ids["missing"]}
    assert found(await _logs(tenant, apiKeyId=key_id, path="/v1/api-keys")) == {ids["refused"]}
    assert found(await _logs(tenant, q="find-me")) == {ids["refused"]}
    assert found(await _logs(tenant, apiKeyId=key_id, q="forbidden")) == {ids["refused"]}
    assert found(await _logs(tenant, q=ids["ok"])) == {ids["ok"]}
    assert found(await _logs(tenant, q="100%_")) == set()
    later = (SystemClock().now() + timedelta(minutes=5)).isoformat()
    assert found(await _logs(tenant, apiKeyId=key_id, createdAfter=later)) == set()
    assert found(await _logs(tenant, apiKeyId=key_id, createdBefore=later)) == set(ids.values())

    for params in ({"status": "4x"}, {"status": "600"}, {"method": "FETCH"}, {"limit": 0}):
        assert_error(
            await tenant.client.get("/v1/request-logs", params=params), 422, "validation_error"
        )


async def test_pages_newest_first(app, tenant):
    secret = await key_secret(tenant, ["organizations:read"], name="pager")
    key_id = await _key_id(tenant, secret)
    async with client_for(app, bearer(secret)) as pager:
        made = [(await pager.get("/v1/organizations/current")).headers["x-request-id"]]
        for _ in range(4):
            made.append((await pager.get("/v1/organizations/current")).headers["x-request-id"])
    seen: list[str] = []
    cursor = None
    while True:
        params = {"apiKeyId": key_id, "limit": 2, **({"cursor": cursor} if cursor else {})}
        page = await _logs(tenant, **params)
        seen += [log["id"] for log in page["data"]]
        if not page["hasMore"]:
            assert page["nextCursor"] is None
            break
        cursor = page["nextCursor"]
    assert seen == list(reversed(made))


async def test_who_may_read_and_what_is_logged(app, tenant):
    without_scope = await key_secret(tenant, ["customers:read"], name="no org read")
    async with client_for(app, bearer(without_scope)) as client:
        assert_error(await client.get("/v1/request-logs"), 403, "forbidden")
    async with client_for(app, bearer(await console_token(tenant))) as console:
        seen = await console.get("/v1/organizations/current")
        listed = await console.get("/v1/request-logs", params={"limit": 250})
    assert listed.status_code == 200, listed.text
    # The console's own requests (a person's session) are not API requests.
    assert seen.headers["x-request-id"] not in [log["id"] for log in listed.json()["data"]]
    unauthenticated = await client_for(app).get("/v1/organizations/current")
    assert unauthenticated.status_code == 401
    assert unauthenticated.headers["x-request-id"] not in [
        log["id"] for log in (await _logs(tenant, limit=250))["data"]
    ]


async def test_prune_keeps_the_last_days(app, tenant, clock):
    now = SystemClock().now()
    clock.set(now - timedelta(days=8))
    old = (await tenant.client.get("/v1/organizations/current")).headers["x-request-id"]
    clock.set(now - timedelta(days=6))
    recent = (await tenant.client.get("/v1/organizations/current")).headers["x-request-id"]
    clock.reset()
    await _logs(tenant)  # flushed
    removed = await prune(app.state.database, SystemClock(), app.state.settings)
    assert removed >= 1
    kept = [log["id"] for log in (await _logs(tenant, limit=250))["data"]]
    assert recent in kept and old not in kept
