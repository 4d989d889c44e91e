"""The organization's configuration over HTTP: defaults, merging PATCH, validation, events."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from tests.auth.credentials import bearer, console_token, key_secret
from tests.conftest import assert_error, client_for
from tests.organizations.events import events_of

PATH = "/v1/organizations/current/configuration"
DEFAULTS = {
    "accountCurrencies": ["USD", "USDC"],
    "transferAuthorizationThreshold": None,
    "defaultDeveloperFee": None,
    "webhookHistoryEnabled": True,
    "reportingCurrency": "USD",
    "requestsPerSecondPerKey": None,
}


async def test_new_organization_has_the_default_configuration(tenant):
    response = await tenant.client.get(PATH)
    assert response.status_code == 200, response.text
    assert response.json() == DEFAULTS


async def test_patch_changes_only_the_fields_sent(tenant):
    response = await tenant.client.patch(
        PATH, json={"transferAuthorizationThreshold": {"currency": "USD", "value": "1000000"}}
    )
    assert response.status_code == 200, response.text
    assert response.json() == {
        **DEFAULTS,
        "transferAuthorizationThreshold": {
            "currency": "USD",
            "exponent": 2,
            "value": "1000000",
            "displayValue": "10000.00",
        },
    }

    response = await tenant.client.patch(
        PATH,
        json={
            "accountCurrencies": ["EUR", "USD", "EURC"],
            "defaultDeveloperFee": {"fixed": "100", "percent": 0.005},
        },
    )
    assert response.status_code == 200, response.text
    configured = response.json()
    assert configured["accountCurrencies"] == ["EUR", "USD", "EURC"]
    assert configured["defaultDeveloperFee"] == {"fixed": "100", "percent": 0.005}
    assert configured["transferAuthorizationThreshold"]["value"] == "1000000"
    assert configured["webhookHistoryEnabled"] is True
    assert (await tenant.client.get(PATH)).json() == configured


async def test_null_clears_a_nullable_field(tenant):
    await tenant.client.patch(
        PATH,
        json={
            "transferAuthorizationThreshold": {"currency": "USDC", "value": "5000000"},
            "defaultDeveloperFee": {"fixed": "0", "percent": 1},
        },
    )
    response = await tenant.client.patch(PATH, json={"transferAuthorizationThreshold": None})
    assert response.status_code == 200, response.text
    assert response.json()["transferAuthorizationThreshold"] is None
    assert response.json()["defaultDeveloperFee"] == {"fixed": "0", "percent": 1.0}
    response = await tenant.client.patch(PATH, json={"defaultDeveloperFee": None})
    assert response.json() == DEFAULTS


async def test_webhook_history_can_be_switched_off_and_on(tenant):
    off = await tenant.client.patch(PATH, json={"webhookHistoryEnabled": False})
    assert off.json()["webhookHistoryEnabled"] is False
    on = await tenant.client.patch(PATH, json={"webhookHistoryEnabled": True})
    assert on.json() == DEFAULTS


async def test_configuration_update_emits_event_with_the_resource_and_bumps_updated_at(
    tenant, clock, app
):
    clock.set(datetime(2026, 6, 1, 8, 0, tzinfo=UTC))
    response = await tenant.client.patch(PATH, json={"accountCurrencies": ["GBP"]})
    assert response.status_code == 200, response.text
    events = await events_of(app, tenant.organization_id, "organization.configuration_updated")
    assert [event.data for event in events] == [response.json()]
    organization = (await tenant.client.get("/v1/organizations/current")).json()
    assert organization["updatedAt"] == "2026-06-01T08:00:00.000Z"


async def test_patch_that_changes_nothing_emits_nothing(tenant, app):
    for body in ({}, {"accountCurrencies": ["USD", "USDC"]}, {"webhookHistoryEnabled": True}):
        response = await tenant.client.patch(PATH, json=body)
        assert response.status_code == 200, response.text
        assert response.json() == DEFAULTS
    assert await events_of(app, tenant.organization_id, "organization.configuration_updated") == []


async def test_configurations_of_two_organizations_are_independent(make_tenant):
    first, second = await make_tenant(), await make_tenant()
    await first.client.patch(PATH, json={"accountCurrencies": ["MXN"]})
    assert (await second.client.get(PATH)).json() == DEFAULTS


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"accountCurrencies": []}, "accountCurrencies"),
        ({"accountCurrencies": ["USD", "USD"]}, "accountCurrencies"),
        ({"accountCurrencies": ["XXX"]}, "accountCurrencies.0"),
        ({"accountCurrencies": ["usd"]}, "accountCurrencies.0"),
        ({"accountCurrencies": [840]}, "accountCurrencies.0"),
        ({"accountCurrencies": "USD"}, "accountCurrencies"),
        ({"accountCurrencies": None}, "accountCurrencies"),
        ({"accountCurrencies": ["USD"] * 500}, "accountCurrencies"),
        ({"accountCurrencies": ["U" * 5000]}, "accountCurrencies.0"),
        ({"transferAuthorizationThreshold": {"currency": "USD", "value": "-1"}}, None),
        ({"transferAuthorizationThreshold": {"currency": "USD", "value": "12.50"}}, None),
        ({"transferAuthorizationThreshold": {"currency": "USD", "value": 1250}}, None),
        ({"transferAuthorizationThreshold": {"currency": "USD", "value": "9" * 30}}, None),
        ({"transferAuthorizationThreshold": {"currency": "ABC", "value": "100"}}, None),
        ({"transferAuthorizationThreshold": {"value": "100"}}, None),
        ({"transferAuthorizationThreshold": {"currency": "USD", "value": "1", "x": 1}}, None),
        ({"transferAuthorizationThreshold": "1000"}, "transferAuthorizationThreshold"),
        ({"defaultDeveloperFee": {"fixed": "100", "percent": 1.5}}, None),
        ({"defaultDeveloperFee": {"fixed": "100", "percent": -0.1}}, None),
        ({"defaultDeveloperFee": {"fixed": "100", "percent": "0.1"}}, None),
        ({"defaultDeveloperFee": {"fixed": "100", "percent": True}}, None),
        ({"defaultDeveloperFee": {"fixed": "abc", "percent": 0.1}}, None),
        ({"defaultDeveloperFee": {"fixed": 100, "percent": 0.1}}, None),
        ({"defaultDeveloperFee": {"fixed": "100"}}, None),
        ({"defaultDeveloperFee": []}, "defaultDeveloperFee"),
        ({"webhookHistoryEnabled": "yes"}, "webhookHistoryEnabled"),
        ({"webhookHistoryEnabled": 1}, "webhookHistoryEnabled"),
        ({"webhookHistoryEnabled": None}, "webhookHistoryEnabled"),
        ({"reportingCurrency": "USDC"}, "reportingCurrency"),
        ({"reportingCurrency": "XYZ"}, "reportingCurrency"),
        ({"reportingCurrency": None}, "reportingCurrency"),
        ({"accountCurrency": ["USD"]}, "accountCurrency"),
        ({"updatedAt": "2026-01-01T00:00:00Z"}, "updatedAt"),
    ],
)
async def test_invalid_configuration_is_refused_naming_the_field(tenant, body, field):
    response = await tenant.client.patch(PATH, json=body)
    problem = assert_error(response, 422, "validation_error")
    named = {error["field"] for error in problem["errors"]}
    sent = next(iter(body))
    if field is not None:
        assert field in named, problem
    assert all(name.startswith(sent) for name in named), problem
    assert (await tenant.client.get(PATH)).json() == DEFAULTS


async def test_non_finite_percent_is_refused(tenant):
    for number in (b"NaN", b"Infinity", b"1e400"):
        response = await tenant.client.patch(
            PATH,
            content=b'{"defaultDeveloperFee": {"fixed": "1", "percent": ' + number + b"}}",
            headers={"Content-Type": "application/json"},
        )
        problem = assert_error(response, 422, "validation_error")
        assert problem["errors"][0]["field"].startswith("defaultDeveloperFee")


async def test_invalid_field_rolls_back_the_valid_ones(tenant):
    response = await tenant.client.patch(
        PATH, json={"accountCurrencies": ["EUR"], "webhookHistoryEnabled": "no"}
    )
    assert_error(response, 422, "validation_error")
    assert (await tenant.client.get(PATH)).json() == DEFAULTS


async def test_malformed_json_is_invalid_json(tenant):
    for content in (b"{", b"[]", b"null", b"\xff"):
        response = await tenant.client.patch(
            PATH, content=content, headers={"Content-Type": "application/json"}
        )
        assert_error(response, 400, "invalid_json")


async def test_concurrent_patches_of_different_fields_all_survive(tenant):
    changes = [
        {"accountCurrencies": ["EUR", "GBP"]},
        {"transferAuthorizationThreshold": {"currency": "EUR", "value": "500000"}},
        {"defaultDeveloperFee": {"fixed": "25", "percent": 0.01}},
        {"webhookHistoryEnabled": False},
    ]
    answers = await asyncio.gather(*(tenant.client.patch(PATH, json=body) for body in changes * 3))
    assert all(answer.status_code == 200 for answer in answers), [a.text for a in answers]
    final = (await tenant.client.get(PATH)).json()
    assert final["accountCurrencies"] == ["EUR", "GBP"]
    assert final["transferAuthorizationThreshold"]["value"] == "500000"
    assert final["defaultDeveloperFee"] == {"fixed": "25", "percent": 0.01}
    assert final["webhookHistoryEnabled"] is False


async def test_only_an_unrestricted_caller_may_change_the_authorization_threshold(tenant, app):
    writer = await key_secret(tenant, ["organizations:write"])
    async with client_for(app, bearer(writer)) as restricted:
        threshold = {"transferAuthorizationThreshold": {"currency": "USD", "value": "500000"}}
        assert_error(await restricted.patch(PATH, json=threshold), 403, "forbidden")
        assert (await tenant.client.get(PATH)).json()["transferAuthorizationThreshold"] is None
        # The other fields stay open to the write scope.
        assert (
            await restricted.patch(PATH, json={"webhookHistoryEnabled": False})
        ).status_code == 200
    async with client_for(app, bearer(await console_token(tenant))) as console:
        assert (await console.patch(PATH, json=threshold)).status_code == 200
    async with client_for(app, bearer(writer)) as restricted:
        assert_error(
            await restricted.patch(PATH, json={"transferAuthorizationThreshold": None}),
            403,
            "forbidden",
        )
    assert (
        await tenant.client.patch(PATH, json={"transferAuthorizationThreshold": None})
    ).status_code == 200
