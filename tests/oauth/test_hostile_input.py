"""Hostile input to every OAuth endpoint: an answer in OAuth's error shape that is also
API.md's (docs/decisions.md), or API.md's alone off the protocol, and never a 500."""

from __future__ import annotations

import pytest

from tests.conftest import assert_error
from tests.console.helpers import console_browser, csrf_of
from tests.oauth.helpers import REDIRECT_URI, authorize, mcp_call, query_of, register
from tests.oauth.test_flow import oauth_error

pytestmark = pytest.mark.usefixtures("mcp_running")

FORM = {"Content-Type": "application/x-www-form-urlencoded"}
PUBLIC = "token_endpoint_auth_method"


def _form(text: str | bytes) -> dict:
    return {"content": text, "headers": FORM}


# Requests a public client (its id put in for CLIENT) makes to the token endpoint.
TOKEN_CASES = [
    ({"json": {"grant_type": "authorization_code"}}, 400, "invalid_request"),
    ({"content": b"grant_type=refresh_token"}, 400, "invalid_request"),
    (_form("client_id=CLIENT&grant_type=a&grant_type=b"), 400, "invalid_request"),
    (_form("client_id=CLIENT&grant_type=" + "x" * 20_000), 400, "invalid_request"),
    (_form(b"client_id=\xff\xfe"), 400, "invalid_request"),
    (_form("client_id=CLIENT&grant_type=%01"), 400, "invalid_request"),
    (_form("client_id=CLIENT&&&=&grant_type"), 400, "invalid_request"),
    (_form("&".join(f"p{index}=1" for index in range(30))), 400, "invalid_request"),
    (_form("grant_type=refresh_token&refresh_token=x"), 401, "invalid_client"),
    (_form("client_id=ocl_nope&grant_type=refresh_token"), 401, "invalid_client"),
    (_form("client_id=" + "o" * 5000), 401, "invalid_client"),
    (_form("client_id=CLIENT"), 400, "invalid_request"),
    (_form("client_id=CLIENT&grant_type=password"), 400, "unsupported_grant_type"),
    (_form("client_id=CLIENT&grant_type=client_credentials"), 400, "unsupported_grant_type"),
    (_form("client_id=CLIENT&grant_type=authorization_code"), 400, "invalid_request"),
    (
        _form("client_id=CLIENT&grant_type=authorization_code&code=x&code_verifier=" + "a" * 50),
        400,
        "invalid_grant",
    ),
    (_form("client_id=CLIENT&grant_type=authorization_code&code=x"), 400, "invalid_request"),
    (_form("client_id=CLIENT&grant_type=refresh_token&refresh_token=x"), 400, "invalid_grant"),
    (_form("client_id=CLIENT&grant_type=refresh_token"), 400, "invalid_request"),
]


@pytest.mark.parametrize(("sent", "status", "error"), TOKEN_CASES)
async def test_hostile_token_requests(anonymous, sent: dict, status: int, error: str) -> None:
    flow = await register(anonymous)
    if isinstance(sent.get("content"), str):
        sent = {**sent, "content": sent["content"].replace("CLIENT", flow.client_id)}
    oauth_error(await anonymous.post("/oauth/token", **sent), status, error)


@pytest.mark.parametrize(
    "authorization",
    ["Basic !!!", "Basic " + "eA==", "Bearer mcp_at_x", "Basic " + "Zm9vOmJhcg==" * 10],
)
async def test_hostile_client_authentication(anonymous, authorization: str) -> None:
    answer = await anonymous.post(
        "/oauth/token",
        content="grant_type=refresh_token&refresh_token=x",
        headers={**FORM, "Authorization": authorization},
    )
    oauth_error(answer, 401, "invalid_client")
    assert answer.headers["www-authenticate"] == 'Basic realm="corridor"'


REGISTRATION_CASES = [
    (
        {"content": b"not json", "headers": {"Content-Type": "application/json"}},
        "invalid_client_metadata",
    ),
    (
        {"content": b"\xff", "headers": {"Content-Type": "application/json"}},
        "invalid_client_metadata",
    ),
    ({"json": [REDIRECT_URI]}, "invalid_client_metadata"),
    ({"content": b"[" * 60_000}, "invalid_client_metadata"),
    ({"content": b" " * 70_000}, "invalid_client_metadata"),
    ({"json": {}}, "invalid_redirect_uri"),
    ({"json": {"redirect_uris": REDIRECT_URI}}, "invalid_redirect_uri"),
    ({"json": {"redirect_uris": []}}, "invalid_redirect_uri"),
    ({"json": {"redirect_uris": ["javascript:alert(1)"]}}, "invalid_redirect_uri"),
    ({"json": {"redirect_uris": ["http://evil.example/cb"]}}, "invalid_redirect_uri"),
    ({"json": {"redirect_uris": [REDIRECT_URI] * 11}}, "invalid_redirect_uri"),
    ({"json": {"redirect_uris": [REDIRECT_URI + "\u202e"]}}, "invalid_redirect_uri"),
    (
        {"json": {"redirect_uris": [REDIRECT_URI], "client_name": "A\u202eB"}},
        "invalid_client_metadata",
    ),
    (
        {"json": {"redirect_uris": [REDIRECT_URI], "client_name": "n" * 201}},
        "invalid_client_metadata",
    ),
    ({"json": {"redirect_uris": [REDIRECT_URI], "client_name": 7}}, "invalid_client_metadata"),
    (
        {"json": {"redirect_uris": [REDIRECT_URI], PUBLIC: "private_key_jwt"}},
        "invalid_client_metadata",
    ),
    (
        {"json": {"redirect_uris": [REDIRECT_URI], "grant_types": ["client_credentials"]}},
        "invalid_client_metadata",
    ),
    (
        {
            "json": {
                "redirect_uris": [REDIRECT_URI],
                "grant_types": ["authorization_code", "password"],
            }
        },
        "invalid_client_metadata",
    ),
    (
        {"json": {"redirect_uris": [REDIRECT_URI], "response_types": ["token"]}},
        "invalid_client_metadata",
    ),
    (
        {"json": {"redirect_uris": [REDIRECT_URI], "scope": "money:print"}},
        "invalid_client_metadata",
    ),
    (
        {"json": {"redirect_uris": [REDIRECT_URI], "contacts": ["a"] * 11}},
        "invalid_client_metadata",
    ),
]


@pytest.mark.parametrize(("sent", "error"), REGISTRATION_CASES)
async def test_hostile_registrations(anonymous, sent: dict, error: str) -> None:
    oauth_error(await anonymous.post("/oauth/register", **sent), 400, error)


async def test_hostile_revocations(anonymous) -> None:
    flow = await register(anonymous)
    missing = await anonymous.post("/oauth/revoke", data={"client_id": flow.client_id})
    oauth_error(missing, 400, "invalid_request")
    as_json = await anonymous.post(
        "/oauth/revoke", json={"client_id": flow.client_id, "token": "x"}
    )
    oauth_error(as_json, 400, "invalid_request")
    stranger = await anonymous.post("/oauth/revoke", data={"client_id": "ocl_x", "token": "x"})
    oauth_error(stranger, 401, "invalid_client")


async def test_hostile_authorization_requests_answered_here(anonymous) -> None:
    flow = await register(anonymous)
    for query in [
        "",
        f"client_id={flow.client_id}&client_id={flow.client_id}",
        f"client_id={flow.client_id}&state=%01",
        "client_id=" + "o" * 3000,
        f"client_id={flow.client_id}&redirect_uri=javascript:alert(1)",
    ]:
        answer = await anonymous.get(f"/oauth/authorize?{query}")
        oauth_error(answer, 400, "invalid_request")


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"response_type": "token"}, "unsupported_response_type"),
        ({"response_type": None}, "unsupported_response_type"),
        ({"scope": "money:print"}, "invalid_scope"),
        ({"scope": "transfers:read " * 200}, "invalid_request"),
        ({"resource": "not a url"}, "invalid_target"),
        ({"resource": "http://testserver/mcp#fragment"}, "invalid_target"),
        ({"code_challenge": "=" * 43}, "invalid_request"),
    ],
)
async def test_hostile_authorization_requests_sent_back(anonymous, overrides, error) -> None:
    flow = await register(anonymous, scope="transfers:read")
    if overrides.get("scope", "").startswith("transfers:read "):
        overrides = {"scope": "transfers:read", "state": "s" * 501}
        error = "invalid_request"
    answer = await authorize(anonymous, flow, **{"scope": "transfers:read", **overrides})
    assert answer.status_code == 302, answer.text
    back = query_of(answer.headers["location"])
    assert back["error"] == error, back
    assert ("state" in back) == (len(overrides.get("state") or "") <= 500)


async def test_a_scope_the_client_did_not_register_is_refused(anonymous) -> None:
    flow = await register(anonymous, scope="transfers:read")
    answer = await authorize(anonymous, flow, scope="transfers:write")
    assert query_of(answer.headers["location"])["error"] == "invalid_scope"


async def test_hostile_consent_answers_change_nothing(app, tenant, anonymous) -> None:
    flow = await register(anonymous)
    path = (await authorize(anonymous, flow)).headers["location"]
    async with console_browser(app, tenant) as console:
        assert (await console.get("/console/connected-apps/authorize/oar_nope")).status_code == 404
        assert (
            await console.get("/console/connected-apps/authorize/" + "x" * 500)
        ).status_code == 404
        token = csrf_of((await console.get(path)).text)
        for form in [
            {"act_as": "agt_01jd3x0p6x9e3k2v1m8q4r7s5t", "scope-transfers:read": "yes"},
            {"act_as": "'; drop table agents; --", "scope-transfers:read": "yes"},
            {"tool_confirmation": "sometimes", "scope-transfers:read": "yes"},
            {"scope-*": "yes"},
            {"scope-transfers:read": "no"},
        ]:
            answer = await console.post(path, data={"csrf_token": token, **form})
            assert answer.status_code == 422, (form, answer.status_code)
        assert (await console.get(path)).status_code == 200


async def test_hostile_tokens_at_mcp(anonymous) -> None:
    for token in ["mcp_at_", "mcp_at_" + "x" * 500, "mcp_rt_x", "mcp_at_\u00e9"]:
        raw = {"Authorization": f"Bearer {token}".encode("latin-1")}
        answer = await mcp_call(anonymous, token, "tools/list", headers=raw)
        assert answer.status_code == 401, (token, answer.text)
        assert answer.json()["code"] == "unauthorized"


async def test_hostile_grant_requests(tenant) -> None:
    assert_error(await tenant.client.get("/v1/oauth-grants/oag_nope"), 404, "not_found")
    assert_error(await tenant.client.get("/v1/oauth-grants?limit=0"), 422, "validation_error")
    bad = await tenant.client.patch(
        "/v1/oauth-grants/oag_01jd3x0p6x9e3k2v1m8q4r7s5t",
        content=b"{",
        headers={"Content-Type": "application/json"},
    )
    assert_error(bad, 400, "invalid_json")
    assert_error(await tenant.client.get("/oauth/token"), 405, "method_not_allowed")
