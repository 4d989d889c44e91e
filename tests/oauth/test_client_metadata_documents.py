"""Client ID metadata documents (MCP authorization 2025-11-25): a client whose client_id is
the https URL of a JSON document describing it. The authorization server fetches it from the
client's site (here a real TLS server on 127.0.0.1, which the sandbox may reach), checks that
it names itself, uses its redirect URIs, caches it, and refuses what is hostile; the fetch
goes through the outbound URL guard, so outside the sandbox loopback and private addresses
are never fetched."""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Iterator

import pytest
from sqlalchemy import func, select

from corridor.kit.clock import SystemClock
from corridor.kit.ids import new_id
from corridor.models.oauth import OAuthClient
from corridor.oauth import documents, repository
from tests.conftest import assert_error
from tests.console.helpers import console_browser
from tests.oauth.documents import DocumentSite, document_site
from tests.oauth.helpers import (
    REDIRECT_URI,
    Flow,
    authorize,
    consent,
    exchange,
    mcp_call,
    query_of,
)

pytestmark = pytest.mark.usefixtures("mcp_running")
PATH = "/oauth/desk-client.json"


@pytest.fixture
def site(tmp_path, monkeypatch) -> Iterator[DocumentSite]:
    with document_site(tmp_path) as published:
        # The fetching process trusts the site's certificate as a system one.
        monkeypatch.setenv("SSL_CERT_FILE", str(published.certificate_file))
        yield published


def document(url: str, **fields) -> dict:
    return {
        "client_id": url,
        "client_name": "Desk Client",
        "client_uri": "https://desk.example",
        "redirect_uris": [REDIRECT_URI],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        **fields,
    }


async def test_the_server_says_it_takes_metadata_documents(anonymous) -> None:
    server = (await anonymous.get("/.well-known/oauth-authorization-server")).json()
    assert server["client_id_metadata_document_supported"] is True
    assert server["registration_endpoint"] == "http://testserver/oauth/register"  # DCR stays


async def test_a_client_known_by_its_document_connects_and_the_document_is_cached(
    app, tenant, anonymous, site
) -> None:
    url = site.publish(
        PATH,
        document(site.url(PATH)),
        headers={"Content-Type": "application/json", "Cache-Control": "max-age=600"},
    )
    flow = Flow(client_id=url)
    asked = await authorize(anonymous, flow)
    assert asked.status_code == 302, asked.text
    async with console_browser(app, tenant) as console:
        page = await console.get(asked.headers["location"])
        assert "Desk Client" in page.text and "127.0.0.1" in page.text and url in page.text
        answered = await consent(console, asked.headers["location"], scopes=["transfers:read"])
    assert answered.status_code == 303, answered.text
    back = query_of(answered.headers["location"])
    assert back["state"] == flow.state
    flow.code = back["code"]
    token = await exchange(anonymous, flow)  # client_id is the URL, no secret: PKCE alone
    assert token.status_code == 200, token.text
    listed = await mcp_call(anonymous, token.json()["access_token"], "tools/list")
    assert listed.status_code == 200, listed.text
    assert "list_transfers" in {tool["name"] for tool in listed.json()["result"]["tools"]}
    [grant] = (await tenant.client.get("/v1/oauth-grants")).json()["data"]
    assert grant["client"]["name"] == "Desk Client"
    assert grant["client"]["redirectUris"] == [REDIRECT_URI]
    assert grant["client"]["metadataUrl"] == url  # its client_id
    # A second request within the document's max-age uses the copy fetched the first time.
    again = await authorize(anonymous, Flow(client_id=url))
    assert again.status_code == 302, again.text
    assert site.hits[PATH] == 1
    # Refreshing needs no fetch either: the token endpoint knows the client by its URL.
    rotated = await anonymous.post(
        "/oauth/token",
        data={
            "grant_type": "refresh_token",
            "refresh_token": token.json()["refresh_token"],
            "client_id": url,
        },
    )
    assert rotated.status_code == 200, rotated.text
    assert site.hits[PATH] == 1


def _refused_here(response) -> str:
    """Answered by the authorization endpoint itself (400), never sent to a redirect URI the
    server could not trust."""
    body = assert_error(response, 400, "invalid_request")
    assert "location" not in response.headers
    return body["message"]


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("names another client_id", "client_id that is not the URL"),
        ("holds a client secret", "must not have client_secret"),
        ("asks for client_secret_basic", "token_endpoint_auth_method"),
        ("lists a javascript: redirect URI", "redirect_uris"),
        ("is too large", "larger than 5120 bytes"),
        ("is not JSON", "is not JSON"),
        ("is HTML", "not JSON"),
        ("redirects elsewhere", "HTTP 302"),
        ("is missing", "HTTP 404"),
    ],
)
async def test_a_document_that_cannot_be_used_is_refused(anonymous, site, case, expected) -> None:
    url = site.url(PATH)
    if case == "names another client_id":
        site.publish(PATH, document(site.url("/oauth/other.json")))
    elif case == "holds a client secret":
        site.publish(PATH, document(url, client_secret="s3cret"))
    elif case == "asks for client_secret_basic":
        site.publish(PATH, document(url, token_endpoint_auth_method="client_secret_basic"))
    elif case == "lists a javascript: redirect URI":
        site.publish(PATH, document(url, redirect_uris=["javascript:alert(1)"]))
    elif case == "is too large":
        site.publish(PATH, document(url, client_name="Desk", software_id="x" * 6000))
    elif case == "is not JSON":
        site.publish(PATH, b"{not json")
    elif case == "is HTML":
        site.publish(PATH, b"<html></html>", headers={"Content-Type": "text/html"})
    elif case == "redirects elsewhere":
        site.publish(
            PATH, b"", status=302, headers={"Location": "https://127.0.0.1/elsewhere.json"}
        )
    message = _refused_here(await authorize(anonymous, Flow(client_id=url)))
    assert expected in message, message


async def test_a_redirect_uri_the_document_does_not_list_is_refused(anonymous, site) -> None:
    url = site.publish(PATH, document(site.url(PATH)))
    asked = await authorize(
        anonymous, Flow(client_id=url), redirect_uri="http://127.0.0.1:9999/stolen"
    )
    assert "not one this client registered" in _refused_here(asked)


@pytest.mark.parametrize(
    ("client_id", "expected"),
    [
        ("http://127.0.0.1/oauth/desk-client.json", "must be an https URL"),
        ("https://127.0.0.1/", "must have a path"),
        ("https://127.0.0.1/a/../client.json", ". or .. path segments"),
        ("https://user:pw@127.0.0.1/client.json", "user information"),
    ],
)
async def test_a_client_id_url_of_the_wrong_shape_is_refused_without_a_fetch(
    anonymous, site, client_id, expected
) -> None:
    message = _refused_here(await authorize(anonymous, Flow(client_id=client_id)))
    assert expected in message, message
    assert site.hits == {}


async def test_the_token_endpoint_never_fetches_an_unknown_document(anonymous, site) -> None:
    url = site.publish(PATH, document(site.url(PATH)))
    answer = await anonymous.post(
        "/oauth/token",
        data={
            "grant_type": "authorization_code",
            "code": "x",
            "code_verifier": "y" * 43,
            "client_id": url,
        },
    )
    assert_error(answer, 401, "invalid_client")
    assert site.hits == {}


async def test_outside_the_sandbox_loopback_and_private_addresses_are_never_fetched(
    site,
) -> None:
    url = site.publish(PATH, document(site.url(PATH)))
    with pytest.raises(documents.DocumentUnavailable, match="loopback"):
        await documents.fetch_document(url, sandbox=False)

    async def private(host: str, port: int) -> list:
        return [ipaddress.ip_address("10.0.0.7")]

    with pytest.raises(documents.DocumentUnavailable, match="private"):
        await documents.fetch_document(
            "https://desk.example/client.json", sandbox=False, resolver=private
        )
    with pytest.raises(documents.DocumentUnavailable, match="link-local"):
        await documents.fetch_document("https://169.254.169.254/latest/meta", sandbox=False)
    assert site.hits == {}
    # The same site in the sandbox (a developer's machine) is fetched.
    fetched = await documents.fetch_document(url, sandbox=True)
    assert b"Desk Client" in fetched.body


async def test_two_first_requests_at_once_share_one_client(app, anonymous, site) -> None:
    url = site.publish(PATH, document(site.url(PATH)))
    first, second = await asyncio.gather(
        authorize(anonymous, Flow(client_id=url)), authorize(anonymous, Flow(client_id=url))
    )
    assert first.status_code == second.status_code == 302, (first.text, second.text)
    async with app.state.database.session() as session:
        found = await session.execute(select(func.count()).where(OAuthClient.metadata_url == url))
        assert found.scalar_one() == 1
    # When the other request's row is committed first, the unique index decides: the
    # savepoint is rolled back and the row already there is used.
    async with app.state.database.session() as session, session.begin():
        twin = OAuthClient(
            id=new_id("ocl"),
            name="Twin",
            redirect_uris=[REDIRECT_URI],
            grant_types=["authorization_code"],
            token_endpoint_auth_method="none",
            scope=None,
            details={},
            secret_hash=None,
            created_at=SystemClock().now(),
            metadata_url=url,
            metadata_expires_at=SystemClock().now(),
        )
        kept = await repository.add_client_once(session, twin)
        assert kept.id != twin.id and kept.name == "Desk Client"
