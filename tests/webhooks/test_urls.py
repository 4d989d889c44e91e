"""Endpoint URLs and the SSRF guard: refused when saved in production, and again at every
attempt after DNS resolution (API.md section 7). Loopback works in the sandbox."""

from __future__ import annotations

import ipaddress
from datetime import UTC, datetime

import pytest

from corridor.config import Environment
from corridor.kit import urls
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


# Hosts written the way resolvers (inet_aton, WHATWG URL) read them, and what they are.
# Each is refused in production on create, on PATCH and at delivery; the sandbox takes
# loopback and nothing else of these (http://0/hook is 0.0.0.0, unspecified: refused).
DISGUISED_HOSTS = [
    ("2130706433", "127.0.0.1"),  # one decimal number
    ("017700000001", "127.0.0.1"),  # one octal number
    ("0x7f000001", "127.0.0.1"),  # one hexadecimal number
    ("0X7F000001", "127.0.0.1"),
    ("0177.0.0.1", "127.0.0.1"),  # octal first byte
    ("0177.0.0.01", "127.0.0.1"),
    ("127.000.000.001", "127.0.0.1"),  # zero-padded (octal) bytes
    ("0x7f.0.0.1", "127.0.0.1"),  # hexadecimal first byte
    ("0x7f.0x0.0x0.0x1", "127.0.0.1"),
    ("127.1", "127.0.0.1"),  # shortened: the last number fills the remaining bytes
    ("127.0.1", "127.0.0.1"),
    ("0x7f.1", "127.0.0.1"),
    ("127.0.0.1.", "127.0.0.1"),  # trailing dot
    ("127.255.255.254", "127.255.255.254"),
    ("１２７.０.０.１", "127.0.0.1"),  # full-width digits, folded by IDNA
    ("0", "0.0.0.0"),  # unspecified
    ("0x0", "0.0.0.0"),
    ("00", "0.0.0.0"),
    ("0.0.0.0", "0.0.0.0"),
    ("167772161", "10.0.0.1"),  # private, decimal
    ("012.0.0.1", "10.0.0.1"),  # private, octal
    ("10.1", "10.0.0.1"),  # private, shortened
    ("0xa9fea9fe", "169.254.169.254"),  # cloud metadata, hexadecimal
    ("2852039166", "169.254.169.254"),  # cloud metadata, decimal
    ("169.254.43518", "169.254.169.254"),  # cloud metadata, shortened
    ("0xc0.0xa8.1.1", "192.168.1.1"),
    ("3232235777", "192.168.1.1"),
    ("0xac100001", "172.16.0.1"),
    ("100.64.1", "100.64.0.1"),  # shared address space (carrier-grade NAT)
    ("3758096385", "224.0.0.1"),  # multicast
    ("4294967295", "255.255.255.255"),  # broadcast (reserved)
    ("0xf0000001", "240.0.0.1"),  # reserved
    ("[::ffff:127.0.0.1]", "::ffff:127.0.0.1"),  # IPv4-mapped IPv6
    ("[::ffff:7f00:1]", "::ffff:127.0.0.1"),
    ("[0:0:0:0:0:ffff:7f00:1]", "::ffff:127.0.0.1"),
    ("[::ffff:a9fe:a9fe]", "::ffff:169.254.169.254"),
    ("[::127.0.0.1]", "::127.0.0.1"),  # IPv4-compatible (deprecated, reserved)
    ("[::1]", "::1"),
    ("[0:0:0:0:0:0:0:1]", "::1"),
    ("[::]", "::"),
    ("[fe80::1]", "fe80::1"),
    ("[ff02::1]", "ff02::1"),
    ("[fc00::1]", "fc00::1"),
]
LOOPBACK = {"127.0.0.1", "127.255.255.254", "::1", "::ffff:127.0.0.1"}


@pytest.mark.parametrize(("host", "address"), DISGUISED_HOSTS)
def test_a_host_is_read_as_resolvers_read_it_and_judged_as_that_address(host, address):
    expected = ipaddress.ip_address(address)
    with pytest.raises(urls.UrlRefused, match=r"must not point at an? \w"):
        urls.parse(f"https://{host}/hook", sandbox=False)
    if address in LOOPBACK:
        target = urls.parse(f"http://{host}/hook", sandbox=True)
        # The request goes to the address the host means, whatever form it was written in.
        assert ipaddress.ip_address(target.host) == expected == target.address
    else:
        with pytest.raises(urls.UrlRefused, match=r"must not point at"):
            urls.parse(f"http://{host}/hook", sandbox=True)


@pytest.mark.parametrize(
    "host",
    ["08", "1.2.3.09", "256.0.0.1", "1.2.3.256.", "1.2.3.4.5", "4294967296", "1..1", "1.2.0x10000"],
)
def test_a_host_that_ends_in_a_number_but_is_no_address_is_refused(host):
    for sandbox in (False, True):
        with pytest.raises(urls.UrlRefused, match=r"not (a )?valid"):
            urls.parse(f"https://{host}/hook", sandbox=sandbox)


@pytest.mark.parametrize(
    ("host", "address"), [("1572394786", "93.184.215.34"), ("0x5db8d722", "93.184.215.34")]
)
def test_a_public_address_in_a_numeric_form_is_taken_as_that_address(host, address):
    target = urls.parse(f"https://{host}:8443/hook", sandbox=False)
    assert target.address == ipaddress.ip_address(address)
    assert target.url_for(target.address) == f"https://{address}:8443/hook"


@pytest.mark.parametrize("host", ["1e100.net", "0x.example.com", "127.0.0.1.example.com"])
def test_names_that_only_contain_numbers_stay_names(host):
    assert urls.parse(f"https://{host}/hook", sandbox=False).address is None


@pytest.mark.parametrize(
    "host", ["2130706433", "127.1", "0x7f000001", "017700000001", "0177.0.0.1", "0"]
)
async def test_production_refuses_disguised_addresses_on_create_and_patch(
    production_app, make_tenant, host
):
    tenant = await make_tenant(production_app)
    refused = await tenant.client.post(
        "/v1/webhooks/endpoints", json={"url": f"https://{host}/hook"}
    )
    body = assert_error(refused, 422, "validation_error")
    assert body["errors"][0]["field"] == "url"
    created = await create_endpoint(tenant.client, "https://example.com/hook")
    patched = await tenant.client.patch(
        f"/v1/webhooks/endpoints/{created['id']}", json={"url": f"https://{host}/hook"}
    )
    assert_error(patched, 422, "validation_error")
    kept = await tenant.client.get(f"/v1/webhooks/endpoints/{created['id']}")
    assert kept.json()["url"] == "https://example.com/hook"


async def test_the_sandbox_treats_host_0_as_0_0_0_0_and_keeps_taking_loopback(tenant):
    for url in ("http://0/hook", "http://0.0.0.0/hook"):
        assert_error(
            await tenant.client.post("/v1/webhooks/endpoints", json={"url": url}),
            422,
            "validation_error",
        )
    await create_endpoint(tenant.client, "http://2130706433:8080/hook")


async def test_a_disguised_address_saved_before_the_guard_is_refused_at_delivery():
    sender = Sender(timeout_s=5, sandbox=False, resolver=_resolver("93.184.215.14"))
    try:
        request = AttemptRequest(
            message_id="msg_x", url="https://0x7f000001/", secrets=[new_secret()], body=b"{}"
        )
        result = await sender.send(request, at=datetime.now(UTC))
    finally:
        await sender.aclose()
    assert result.status_code is None
    assert result.error.startswith("URL refused") and "loopback" in result.error


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
