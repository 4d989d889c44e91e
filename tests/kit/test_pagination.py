"""Cursor pagination (API.md section 3) through GET /v1/api-keys: limits, walks, cursors."""

from __future__ import annotations

import pytest

from corridor.kit.ids import new_id
from tests.conftest import assert_error


async def _make_keys(tenant, count: int) -> list[str]:
    """Ids of the tenant's keys, newest first: its bootstrap key plus `count` new ones."""
    for number in range(count):
        response = await tenant.client.post(
            "/v1/api-keys", json={"name": f"key {number}", "scopes": ["customers:read"]}
        )
        assert response.status_code == 201, response.text
    listed = await tenant.client.get("/v1/api-keys", params={"limit": 250})
    return [item["id"] for item in listed.json()["data"]]


async def _walk(tenant, limit: int) -> tuple[list[str], list[dict]]:
    seen: list[str] = []
    pages: list[dict] = []
    params: dict[str, object] = {"limit": limit}
    for _ in range(50):
        response = await tenant.client.get("/v1/api-keys", params=params)
        assert response.status_code == 200, response.text
        page = response.json()
        pages.append(page)
        seen += [item["id"] for item in page["data"]]
        if not page["hasMore"]:
            return seen, pages
        params = {"limit": limit, "cursor": page["nextCursor"]}
    raise AssertionError("the walk never reached the last page")


async def test_default_page_is_newest_first(tenant):
    ids = await _make_keys(tenant, 3)
    assert len(ids) == 4
    assert ids == sorted(ids, reverse=True)
    page = (await tenant.client.get("/v1/api-keys")).json()
    assert set(page) == {"data", "nextCursor", "hasMore"}
    assert [item["id"] for item in page["data"]] == ids
    assert page["hasMore"] is False and page["nextCursor"] is None


async def test_newest_first_follows_creation_order(tenant):
    created = []
    for number in range(3):
        response = await tenant.client.post(
            "/v1/api-keys", json={"name": f"ordered {number}", "scopes": ["*"]}
        )
        created.append(response.json()["id"])
    listed = (await tenant.client.get("/v1/api-keys", params={"limit": 3})).json()["data"]
    assert [item["id"] for item in listed] == list(reversed(created))


@pytest.mark.parametrize("limit", [1, 2, 3, 7, 8, 250])
async def test_cursor_walk_visits_every_item_once_newest_first(tenant, limit):
    ids = await _make_keys(tenant, 7)
    seen, pages = await _walk(tenant, limit)
    assert seen == ids
    assert all(len(page["data"]) == limit for page in pages[:-1])
    for page in pages[:-1]:
        assert page["hasMore"] is True
        assert page["nextCursor"] == page["data"][-1]["id"]
    assert pages[-1]["hasMore"] is False and pages[-1]["nextCursor"] is None


async def test_exactly_full_last_page_says_no_more(tenant):
    ids = await _make_keys(tenant, 5)  # six keys in all: two full pages of three
    seen, pages = await _walk(tenant, 3)
    assert seen == ids
    assert len(pages) == 2 and len(pages[-1]["data"]) == 3
    assert pages[-1]["hasMore"] is False and pages[-1]["nextCursor"] is None


async def test_cursor_past_the_oldest_item_gives_an_empty_last_page(tenant):
    ids = await _make_keys(tenant, 1)
    page = (await tenant.client.get("/v1/api-keys", params={"cursor": ids[-1]})).json()
    assert page == {"data": [], "nextCursor": None, "hasMore": False}


async def test_cursor_of_another_list_or_organization_reveals_nothing(make_tenant):
    first, second = await make_tenant(), await make_tenant()
    await _make_keys(first, 2)
    newest_of_second = (await second.client.get("/v1/api-keys")).json()["data"][0]["id"]
    # A cursor newer than everything: the first tenant still sees only its own keys.
    page = (await first.client.get("/v1/api-keys", params={"cursor": new_id("key")})).json()
    assert len(page["data"]) == 3
    assert newest_of_second not in {item["id"] for item in page["data"]}


async def test_limit_bounds_are_one_and_250(tenant):
    assert (await tenant.client.get("/v1/api-keys", params={"limit": 1})).status_code == 200
    assert (await tenant.client.get("/v1/api-keys", params={"limit": 250})).status_code == 200
    for limit in ("0", "251", "-1", "abc", "1.5", "", "99999999999999999999"):
        response = await tenant.client.get("/v1/api-keys", params={"limit": limit})
        problem = assert_error(response, 422, "validation_error")
        assert problem["errors"][0]["field"] == "limit"


@pytest.mark.parametrize(
    "cursor",
    [
        "nope",
        "key_",
        "key_01JD3X0P6X9E3K2V1M8Q4R7S5T",
        "key_01jd3x0p6x9e3k2v1m8q4r7s5",
        "' OR 1=1 --",
        "key_" + "0" * 300,
        "",
    ],
)
async def test_malformed_cursor_is_a_validation_error(tenant, cursor):
    response = await tenant.client.get("/v1/api-keys", params={"cursor": cursor})
    problem = assert_error(response, 422, "validation_error")
    assert problem["errors"][0]["field"] == "cursor"
