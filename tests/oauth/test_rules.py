"""OAuth's pure rules: PKCE S256, the redirect URIs a client may register, the resource."""

from __future__ import annotations

import base64
import hashlib

import pytest
from mcp.client.auth.oauth2 import PKCEParameters

from corridor.oauth import rules


def test_the_mcp_clients_pkce_pair_matches() -> None:
    """The official client's own S256 pair (mcp.client.auth) is accepted."""
    pair = PKCEParameters.generate()
    assert rules.pkce_challenge(pair.code_verifier) == pair.code_challenge
    assert rules.pkce_matches(pair.code_verifier, pair.code_challenge)


def test_a_plain_verifier_equal_to_the_challenge_does_not_match() -> None:
    """A downgrade to `plain` (verifier == challenge) is never accepted."""
    challenge = PKCEParameters.generate().code_challenge
    assert not rules.pkce_matches(challenge, challenge)


VERIFIER = "M25iVXpKU3puUjFaYWg3T1NDTDQtcW1ROUY5YXlwalNoc0hhakxifmZHag"


@pytest.mark.parametrize(
    "verifier",
    ["short", "x" * 129, VERIFIER[:-1] + " ", VERIFIER[:-1] + "é", ""],
)
def test_a_verifier_outside_the_rfc_alphabet_or_length_never_matches(verifier: str) -> None:
    digest = hashlib.sha256(verifier.encode()).digest()
    challenge = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    assert not rules.pkce_matches(verifier, challenge)


@pytest.mark.parametrize(
    "uri",
    [
        "https://app.example.com/callback",
        "http://127.0.0.1:33418/callback",
        "http://localhost:8080/oauth",
        "http://[::1]:9000/cb",
        "com.example.desktop:/oauth2redirect",
        "cursor://anysphere.cursor-retrieval/oauth/callback",
    ],
)
def test_a_client_may_register_https_loopback_and_app_schemes(uri: str) -> None:
    assert rules.redirect_uri_problem(uri) is None


@pytest.mark.parametrize(
    ("uri", "problem"),
    [
        ("http://app.example.com/callback", "loopback"),
        ("https://app.example.com/callback#here", "fragment"),
        ("javascript:alert(1)", "javascript"),
        ("data:text/html,hi", "data"),
        ("https://user:secret@app.example.com/cb", "user information"),
        ("/relative/callback", "absolute"),
        ("https://app.example.com/a b", "spaces"),
        ("https:///nohost", "host"),
        ("https://app.example.com/" + "a" * 2000, "2000"),
    ],
)
def test_a_client_may_not_register_other_redirect_uris(uri: str, problem: str) -> None:
    found = rules.redirect_uri_problem(uri)
    assert found is not None and problem in found


def test_the_resource_is_compared_in_its_canonical_form() -> None:
    assert rules.mcp_resource("http://127.0.0.1:8000/") == "http://127.0.0.1:8000/mcp"
    assert rules.canonical_resource("HTTP://127.0.0.1:8000/mcp/") == "http://127.0.0.1:8000/mcp"
    assert rules.canonical_resource("http://127.0.0.1:8000/mcp#x") is None
    assert rules.canonical_resource("urn:corridor:mcp") is None


def test_scope_words_drop_duplicates_and_offline_access() -> None:
    words = rules.scope_words("transfers:read  offline_access transfers:read accounts:read")
    assert words == ["transfers:read", "accounts:read"]
    assert rules.unknown_scopes(["transfers:read", "money:print"]) == ["money:print"]
    assert rules.agent_may_hold(["transfers:write", "customers:write"]) == ["customers:write"]
