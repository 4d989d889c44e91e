"""Idempotency-Key (API.md section 3) through two creating endpoints: POST /v1/api-keys and
POST /v1/organizations."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update

from corridor.models.idempotency import IdempotencyRecord
from corridor.web.idempotency import fingerprint, in_progress_lease_s
from tests.auth.credentials import bearer, console_token, key_secret
from tests.conftest import assert_error, client_for
from tests.support import create_individual

KEY = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"
ON_BEHALF_OF = "X-Corridor-On-Behalf-Of"
CREATES = [
    ("/v1/api-keys", {"name": "payouts", "scopes": ["customers:read"]}, "/v1/api-keys"),
    ("/v1/organizations", {"name": "Acme Europe"}, "/v1/organizations"),
]


async def _ids(client, list_path: str) -> list[str]:
    response = await client.get(list_path, params={"limit": 250})
    assert response.status_code == 200, response.text
    return [item["id"] for item in response.json()["data"]]


class _ShownOnceNote:
    """Equal to any note that says the secret was shown once and is never stored."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and "shown once" in other and "never stored" in other


def _without_secret(answer: dict, field: str = "secret") -> dict:
    """What a replay of a secret-bearing create answers: the same resource, the secret
    null, and a note saying it was shown once (the secret is never stored)."""
    return {**answer, field: None, "secretNote": _ShownOnceNote()}


@pytest.mark.parametrize(("path", "body", "list_path"), CREATES)
async def test_same_key_and_body_replays_the_first_answer_byte_for_byte(
    tenant, path, body, list_path
):
    before = await _ids(tenant.client, list_path)
    first = await tenant.client.post(path, json=body, headers={KEY: "create-1"})
    assert first.status_code == 201, first.text
    assert REPLAYED not in first.headers
    for _ in range(2):
        again = await tenant.client.post(path, json=body, headers={KEY: "create-1"})
        assert again.status_code == 201
        if path == "/v1/api-keys":  # the one part never replayed: the key's secret
            assert first.json()["secret"].startswith("sk_sandbox_")
            assert again.json() == _without_secret(first.json())
            assert list(again.json()) == [*first.json(), "secretNote"]
        else:
            assert again.content == first.content
        assert again.headers[REPLAYED] == "true"
        assert again.headers["content-type"] == "application/json"
    after = await _ids(tenant.client, list_path)
    assert after == [first.json()["id"], *before]


async def test_a_replayed_key_creation_never_shows_the_secret_nor_stores_it(tenant, app):
    """API.md section 4: a secret is shown once. The stored answer holds no secret, so a
    replay (even within the 24 hours) answers the key without it, and says why."""
    body = {"name": "deploy", "scopes": ["*"]}
    first = await tenant.client.post("/v1/api-keys", json=body, headers={KEY: "secret-key"})
    secret = first.json()["secret"]
    async with app.state.database.session(write=False) as session:
        stored = await session.execute(
            select(IdempotencyRecord.response_body).where(
                IdempotencyRecord.organization_id == tenant.organization_id,
                IdempotencyRecord.key == "secret-key",
            )
        )
        kept = stored.scalar_one()
    assert secret not in kept and secret[-20:] not in kept
    again = await tenant.client.post("/v1/api-keys", json=body, headers={KEY: "secret-key"})
    assert again.json()["secret"] is None and secret not in again.text
    assert "revoke this key and create another" in again.json()["secretNote"]
    assert "secretNote" not in first.json()
    # The key the replay names is the one made first, and it works.
    assert again.json()["id"] == first.json()["id"]
    async with client_for(app, bearer(secret)) as owner:
        assert (await owner.get("/v1/api-keys")).status_code == 200


async def test_replay_ignores_json_spacing_and_key_order(tenant):
    first = await tenant.client.post(
        "/v1/organizations",
        content=b'{"name": "Acme", "kind": "PLATFORM"}',
        headers={KEY: "spacing", "Content-Type": "application/json"},
    )
    again = await tenant.client.post(
        "/v1/organizations",
        content=b'{"kind":"PLATFORM",\n  "name":"Acme"}',
        headers={KEY: "spacing", "Content-Type": "application/json"},
    )
    assert first.status_code == again.status_code == 201
    assert again.content == first.content and again.headers[REPLAYED] == "true"


@pytest.mark.parametrize(("path", "body", "list_path"), CREATES)
async def test_same_key_with_a_different_body_is_refused(tenant, path, body, list_path):
    first = await tenant.client.post(path, json=body, headers={KEY: "create-2"})
    assert first.status_code == 201
    before = await _ids(tenant.client, list_path)
    changed = {**body, "name": "something else"}
    response = await tenant.client.post(path, json=changed, headers={KEY: "create-2"})
    assert_error(response, 409, "idempotency_key_reused")
    assert await _ids(tenant.client, list_path) == before


async def test_same_key_on_a_different_path_is_refused(tenant):
    first = await tenant.client.post(
        "/v1/api-keys", json={"name": "k", "scopes": ["*"]}, headers={KEY: "shared"}
    )
    assert first.status_code == 201
    response = await tenant.client.post(
        "/v1/organizations", json={"name": "k"}, headers={KEY: "shared"}
    )
    assert_error(response, 409, "idempotency_key_reused")
    assert await _ids(tenant.client, "/v1/organizations") == [tenant.organization_id]


async def test_keys_belong_to_one_organization(make_tenant):
    first, second = await make_tenant(), await make_tenant()
    answers = [
        await tenant.client.post("/v1/organizations", json={"name": "Same"}, headers={KEY: "k"})
        for tenant in (first, second)
    ]
    assert [answer.status_code for answer in answers] == [201, 201]
    assert all(REPLAYED not in answer.headers for answer in answers)
    assert answers[0].json()["parentId"] == first.organization_id
    assert answers[1].json()["parentId"] == second.organization_id


async def test_another_caller_of_the_organization_does_not_get_the_stored_answer(tenant, app):
    """A replay would hand a key's secret to a caller not allowed to create keys."""
    body = {"name": "deploy", "scopes": ["*"]}
    first = await tenant.client.post("/v1/api-keys", json=body, headers={KEY: "mine"})
    assert first.status_code == 201
    for scopes in (["customers:read"], ["*"]):
        async with client_for(app, bearer(await key_secret(tenant, scopes))) as other:
            response = await other.post("/v1/api-keys", json=body, headers={KEY: "mine"})
            assert_error(response, 409, "idempotency_key_reused")
            assert first.json()["secret"] not in response.text


async def test_a_request_bound_to_another_customer_is_another_request(tenant):
    first_customer = await create_individual(tenant.client)
    second_customer = await create_individual(tenant.client, email="second@example.com")
    body = {"name": "deploy", "scopes": ["customers:read"]}
    bound = {KEY: "bound", ON_BEHALF_OF: first_customer["id"]}
    first = await tenant.client.post("/v1/api-keys", json=body, headers=bound)
    assert first.status_code in (201, 403), (
        first.text
    )  # whether a bound caller may is not the point
    again = await tenant.client.post("/v1/api-keys", json=body, headers=bound)
    expected = _without_secret(first.json()) if first.status_code == 201 else first.json()
    assert again.json() == expected and again.headers[REPLAYED] == "true"
    for headers in ({KEY: "bound"}, {KEY: "bound", ON_BEHALF_OF: second_customer["id"]}):
        response = await tenant.client.post("/v1/api-keys", json=body, headers=headers)
        assert_error(response, 409, "idempotency_key_reused")


async def test_the_same_console_user_replays_across_its_sessions(tenant, app):
    body = {"name": "From console"}
    async with client_for(app, bearer(await console_token(tenant))) as console:
        first = await console.post("/v1/organizations", json=body, headers={KEY: "console"})
    async with client_for(app, bearer(await console_token(tenant))) as console:
        again = await console.post("/v1/organizations", json=body, headers={KEY: "console"})
    assert first.status_code == 201
    assert again.content == first.content and again.headers[REPLAYED] == "true"


async def test_key_of_255_characters_is_accepted_and_longer_or_empty_refused(tenant):
    accepted = await tenant.client.post(
        "/v1/organizations", json={"name": "Long key"}, headers={KEY: "k" * 255}
    )
    assert accepted.status_code == 201, accepted.text
    for key in ("k" * 256, "k" * 5000, ""):
        response = await tenant.client.post(
            "/v1/organizations", json={"name": "Refused"}, headers={KEY: key}
        )
        problem = assert_error(response, 422, "validation_error")
        assert problem["errors"][0]["field"] == KEY
    assert len(await _ids(tenant.client, "/v1/organizations")) == 2


async def test_service_refusal_is_stored_and_replayed(tenant):
    body = {"name": "k", "scopes": ["money:print"]}
    first = await tenant.client.post("/v1/api-keys", json=body, headers={KEY: "refused"})
    problem = assert_error(first, 422, "validation_error")
    assert problem["errors"][0]["field"] == "scopes"
    again = await tenant.client.post("/v1/api-keys", json=body, headers={KEY: "refused"})
    assert again.status_code == 422
    assert again.content == first.content and again.headers[REPLAYED] == "true"
    fixed = {"name": "k", "scopes": ["customers:read"]}
    assert_error(
        await tenant.client.post("/v1/api-keys", json=fixed, headers={KEY: "refused"}),
        409,
        "idempotency_key_reused",
    )


async def test_forbidden_answer_is_stored_and_replayed(tenant, app):
    async with client_for(app, bearer(await key_secret(tenant, ["organizations:write"]))) as key:
        first = await key.post("/v1/organizations", json={"name": "C"}, headers={KEY: "no"})
        assert_error(first, 403, "forbidden")
        again = await key.post("/v1/organizations", json={"name": "C"}, headers={KEY: "no"})
        assert again.content == first.content and again.headers[REPLAYED] == "true"


@pytest.mark.parametrize(
    "content",
    [b'{"name": ""}', b'{"name": "x", "extra": 1}', b'{"name": 5}', b"{", b"\xff"],
)
async def test_request_validation_refusal_is_not_stored(tenant, content):
    headers = {KEY: "malformed", "Content-Type": "application/json"}
    for _ in range(2):
        response = await tenant.client.post("/v1/organizations", content=content, headers=headers)
        assert response.status_code in (400, 422)
        assert REPLAYED not in response.headers
    valid = await tenant.client.post(
        "/v1/organizations", json={"name": "Valid"}, headers={KEY: "malformed"}
    )
    assert valid.status_code == 201, valid.text
    assert REPLAYED not in valid.headers


async def test_key_is_kept_24_hours_then_free_again(tenant, clock):
    start = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
    clock.set(start)
    body = {"name": "Daily"}
    first = await tenant.client.post("/v1/organizations", json=body, headers={KEY: "daily"})
    assert first.status_code == 201

    clock.set(start + timedelta(hours=23, minutes=59, seconds=59))
    again = await tenant.client.post("/v1/organizations", json=body, headers={KEY: "daily"})
    assert again.content == first.content and again.headers[REPLAYED] == "true"

    clock.set(start + timedelta(hours=24))
    fresh = await tenant.client.post("/v1/organizations", json=body, headers={KEY: "daily"})
    assert fresh.status_code == 201 and REPLAYED not in fresh.headers
    assert fresh.json()["id"] != first.json()["id"]
    later = await tenant.client.post(
        "/v1/organizations", json={"name": "Other"}, headers={KEY: "daily"}
    )
    assert_error(later, 409, "idempotency_key_reused")


async def test_reads_and_non_creating_methods_ignore_the_key(tenant):
    assert (await tenant.client.get("/v1/organizations", headers={KEY: "read"})).status_code == 200
    patched = await tenant.client.patch(
        "/v1/organizations/current", json={"name": "Patched"}, headers={KEY: "read"}
    )
    assert patched.status_code == 200 and REPLAYED not in patched.headers
    created = await tenant.client.post(
        "/v1/organizations", json={"name": "C"}, headers={KEY: "read"}
    )
    assert created.status_code == 201 and REPLAYED not in created.headers


async def test_concurrent_duplicates_create_exactly_once(tenant, backend):
    body = {"name": f"Concurrent on {backend}"}
    answers = await asyncio.gather(
        *(
            tenant.client.post("/v1/organizations", json=body, headers={KEY: "burst"})
            for _ in range(20)
        )
    )
    created = [a for a in answers if a.status_code == 201 and REPLAYED not in a.headers]
    assert len(created) == 1, [a.status_code for a in answers]
    for answer in answers:
        if answer.status_code == 201:
            assert answer.content == created[0].content
        else:
            assert_error(answer, 409, "idempotency_key_in_progress")
            assert answer.headers["retry-after"] == "1"
    children = await _ids(tenant.client, "/v1/organizations")
    assert children == [created[0].json()["id"], tenant.organization_id]
    settled = await tenant.client.post("/v1/organizations", json=body, headers={KEY: "burst"})
    assert settled.content == created[0].content and settled.headers[REPLAYED] == "true"


async def _mark_in_progress(app, organization_id: str, key: str, *, until: datetime) -> None:
    """Put a stored key back in the state of a first request still running."""
    async with app.state.database.session() as session, session.begin():
        await session.execute(
            update(IdempotencyRecord)
            .where(
                IdempotencyRecord.organization_id == organization_id, IdempotencyRecord.key == key
            )
            .values(
                state="IN_PROGRESS", response_status=None, response_body=None, locked_until=until
            )
        )


async def test_key_in_progress_answers_409_until_its_lease_ends(tenant, app, clock):
    start = datetime(2026, 4, 2, 9, 0, tzinfo=UTC)
    clock.set(start)
    body = {"name": "Slow"}
    first = await tenant.client.post("/v1/organizations", json=body, headers={KEY: "slow"})
    assert first.status_code == 201
    lease_end = start + timedelta(seconds=in_progress_lease_s)
    await _mark_in_progress(app, tenant.organization_id, "slow", until=lease_end)

    clock.set(lease_end - timedelta(seconds=1))
    busy = await tenant.client.post("/v1/organizations", json=body, headers={KEY: "slow"})
    assert_error(busy, 409, "idempotency_key_in_progress")
    assert busy.headers["retry-after"] == "1"
    other = await tenant.client.post("/v1/organizations", json={"name": "X"}, headers={KEY: "slow"})
    assert_error(other, 409, "idempotency_key_reused")

    # The first request died without answering: after its lease the key is taken over.
    clock.set(lease_end)
    retried = await tenant.client.post("/v1/organizations", json=body, headers={KEY: "slow"})
    assert retried.status_code == 201 and REPLAYED not in retried.headers
    assert retried.json()["id"] != first.json()["id"]


def test_fingerprint_ignores_json_layout_but_not_caller_method_path_or_body():
    base = fingerprint("POST", "/v1/organizations", b'{"a": 1, "b": [1, 2]}', caller="key_a ")
    assert base == fingerprint("post", "/v1/organizations", b'{"b":[1,2],"a":1}', caller="key_a ")
    for other in (
        fingerprint("POST", "/v1/organizations", b'{"a": 1, "b": [1, 2]}', caller="key_b "),
        fingerprint("POST", "/v1/organizations", b'{"a": 1, "b": [1, 2]}', caller="key_a cus_x"),
        fingerprint("PUT", "/v1/organizations", b'{"a": 1, "b": [1, 2]}', caller="key_a "),
        fingerprint("POST", "/v1/api-keys", b'{"a": 1, "b": [1, 2]}', caller="key_a "),
        fingerprint("POST", "/v1/organizations", b'{"a": 1, "b": [2, 1]}', caller="key_a "),
        fingerprint("POST", "/v1/organizations", b"\xff not json", caller="key_a "),
    ):
        assert other != base
