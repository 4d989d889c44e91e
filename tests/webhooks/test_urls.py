"""Endpoint URLs and the SSRF guard: refused when saved in production, and again at every
attempt after DNS resolution (API.md section 7). Loopback works in the sandbox."""

from __future__ import annotations

import ipaddress
from datetime import UTC, datetime

import pytest

from corridor.config import Environment
from corridor.webhooks import urls
from corridor.webhooks.sender import AttemptRequest, Sender
from corridor.webhooks.signing import new_secret
from tests.conftest import assert_error
from tests.webhooks.support import attempts, create_endpoint, deliver, emit_events, worker_settings

REFUSED_IN_PRODUCTION = [
    "127.0.0.1",
    "[::1]",
    "[::ffff:127.0.0.1]",
    "169.254.169.254",
    "10.0.0.1",
    "100.64.0.1",
    "172.16.0.1",
    "192.168.1.1",
    "[fd00::1]",
    "[fe80::1]",
    "0.0.0.0",
    "[64:ff9b::a00:1]",
    "[2002:a00:1::]",
]


@pytest.mark.parametrize("host", REFUSED_IN_PRODUCTION)
async def test_production_refuses_non_public_addresses(production_app, make_tenant, host):
    tenant = await make_tenant(production_app)
    response = await tenant.client.post(
        "/v1/webhooks/endpoints", json={"url": f"https://{host}/hooks"}
    )
    body = assert_error(response, 422, "validation_error")
    assert body["errors"][0]["field"] == "url"


@pytest.mark.parametrize("url", ["http://example.com/hooks", "https://localhost/hooks"])
async def test_production_takes_https_to_a_public_host_only(production_app, make_tenant, url):
    tenant = await make_tenant(production_app)
    response = await tenant.client.post("/v1/webhooks/endpoints", json={"url": url})
    assert_error(response, 422, "validation_error")
    accepted = await tenant.client.post(
        "/v1/webhooks/endpoints", json={"url": "https://example.com/hooks"}
    )
    assert accepted.status_code == 201, accepted.text


@pytest.mark.parametrize("host", ["127.0.0.1", "[::1]", "[::ffff:127.0.0.1]", "localhost"])
async def test_the_sandbox_takes_loopback_over_http(tenant, host):
    await create_endpoint(tenant.client, f"http://{host}:8080/hooks")


@pytest.mark.parametrize("host", ["169.254.169.254", "10.0.0.1", "100.64.0.1"])
async def test_the_sandbox_still_refuses_other_private_addresses(tenant, host):
    response = await tenant.client.post(
        "/v1/webhooks/endpoints", json={"url": f"http://{host}/hooks"}
    )
    assert_error(response, 422, "validation_error")


@pytest.mark.parametrize(
    "address",
    ["127.0.0.1", "::1", "::ffff:127.0.0.1", "169.254.169.254", "10.0.0.1", "100.64.0.1"],
)
def test_the_issue_addresses_are_refused_in_production_and_loopback_alone_in_sandbox(address):
    parsed = ipaddress.ip_address(address)
    assert urls.address_problem(parsed, sandbox=False) is not None
    loopback = address in {"127.0.0.1", "::1", "::ffff:127.0.0.1"}
    assert (urls.address_problem(parsed, sandbox=True) is None) is loopback


@pytest.mark.parametrize("address", ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"])
def test_public_addresses_are_allowed(address):
    assert urls.address_problem(ipaddress.ip_address(address), sandbox=False) is None


def _resolver(*answers: str):
    async def resolve(host: str, port: int):
        return [ipaddress.ip_address(answer) for answer in answers]

    return resolve


async def test_a_name_resolving_to_a_private_address_is_refused_at_delivery():
    target = urls.parse("https://hooks.example.com/x", sandbox=False)
    with pytest.raises(urls.UrlRefused, match=r"resolves to 10\.0\.0\.7"):
        await urls.checked_addresses(target, sandbox=False, resolver=_resolver("10.0.0.7"))


async def test_a_name_with_one_private_address_among_public_ones_is_refused():
    target = urls.parse("https://hooks.example.com/x", sandbox=False)
    with pytest.raises(urls.UrlRefused):
        await urls.checked_addresses(
            target, sandbox=False, resolver=_resolver("93.184.215.14", "169.254.169.254")
        )


async def test_a_name_resolving_to_public_addresses_is_sent_to_them():
    target = urls.parse("https://hooks.example.com:8443/x?y=1", sandbox=False)
    found = await urls.checked_addresses(target, sandbox=False, resolver=_resolver("93.184.215.14"))
    assert [str(address) for address in found] == ["93.184.215.14"]
    assert target.url_for(found[0]) == "https://93.184.215.14:8443/x?y=1"
    assert target.host_header == "hooks.example.com:8443"


async def test_the_sender_refuses_a_private_answer_before_connecting():
    sender = Sender(timeout_s=5, sandbox=False, resolver=_resolver("127.0.0.1"))
    try:
        request = AttemptRequest(
            message_id="msg_x", url="https://hooks.example.com/", secrets=[new_secret()], body=b"{}"
        )
        result = await sender.send(request, at=datetime.now(UTC))
    finally:
        await sender.aclose()
    assert result.status_code is None
    assert result.error.startswith("URL refused")


async def test_production_workers_refuse_a_loopback_endpoint_saved_in_the_sandbox(
    tenant, app, receiver
):
    """The URL is checked again at every attempt, by the environment the worker runs in."""
    await create_endpoint(tenant.client, receiver.url)
    [message_id] = await emit_events(app, tenant.organization_id)
    production = worker_settings(app, env=Environment.PRODUCTION, webhook_retry_schedule_s=[3600])
    await deliver(app, production)
    assert receiver.received == []
    [attempt] = await attempts(tenant.client, message_id)
    assert attempt["status"] == "FAIL"
    assert attempt["error"].startswith("URL refused")
