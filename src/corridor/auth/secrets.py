"""Making, hashing and checking secrets: API keys, session tokens, console passwords."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

secret_random_chars = 40
key_prefix_visible_chars = 6
# OAuth access tokens (oauth/) are for the MCP endpoint only; the API recognises and refuses them.
OAUTH_ACCESS_TOKEN_PREFIX = "mcp_at_"
_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_password_hasher = PasswordHasher()
# Verified against when the email is unknown, so a wrong email costs as long as a wrong password.
_DUMMY_PASSWORD_HASH = _password_hasher.hash("corridor-no-such-user")


def random_token(length: int = secret_random_chars) -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(length))


def organization_key_secret(environment: str) -> str:
    return f"sk_{environment}_{random_token()}"


def agent_key_secret(environment: str) -> str:
    return f"sk_{environment}_agent_{random_token()}"


def is_agent_key_secret(secret: str) -> bool:
    """Whether `secret` has the shape of an agent key's (`sk_<environment>_agent_…`): the
    random part never holds an underscore, so no organization key has it."""
    return secret.split("_", 3)[2:3] == ["agent"]


def console_session_token() -> str:
    return f"cs_{random_token()}"


def csrf_token(session_token: str) -> str:
    """The CSRF token of a console session: derived from the session's token (HMAC), so it
    is never stored, changes with every session, and cannot be made without the token."""
    digest = hmac.new(session_token.encode(), b"corridor console csrf", hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def visible_prefix(secret: str) -> str:
    """What lists show of a key: its kind and the first few random characters."""
    head, _, tail = secret.rpartition("_")
    return f"{head}_{tail[:key_prefix_visible_chars]}"


def hash_secret(secret: str) -> str:
    # Secrets carry 238 bits of randomness, so a plain SHA-256 cannot be brute-forced.
    return hashlib.sha256(secret.encode()).hexdigest()


def same_hash(left: str, right: str) -> bool:
    return hmac.compare_digest(left.encode(), right.encode())


def hash_password(password: str) -> str:
    return _password_hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    try:
        return (
            _password_hasher.verify(password_hash or _DUMMY_PASSWORD_HASH, password)
            and password_hash is not None
        )
    except (VerificationError, InvalidHashError):
        return False
