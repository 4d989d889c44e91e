"""Encryption at rest of the secrets the server must read back (webhook signing secrets).

`cryptography`'s Fernet (AES-128-CBC with HMAC-SHA256, random IV, versioned tokens) under
the server key: `CORRIDOR_SECRET_KEY`, or in the embedded default a key generated on first
run into the data folder (`secret.key` beside the SQLite file, mode 0600). Retired keys
(`CORRIDOR_SECRET_KEYS_RETIRED`) still decrypt, so the key can be rotated: set the new key,
list the old one as retired, run `corridor reencrypt-secrets`, then drop the old one.

The process holds one box (`install`), set by `create_app`, `corridor worker` and the
commands that touch such secrets; the column type `models.base.EncryptedText` uses it.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

KEY_FILE_NAME = "secret.key"
DEFAULT_DATA_DIRECTORY = Path(".corridor")
_SQLITE_PREFIXES = ("sqlite+aiosqlite:///", "sqlite:///")


class SecretBoxError(RuntimeError):
    """No usable key, or a value no configured key decrypts."""


class SecretBox:
    """Encrypts with the primary key; decrypts with the primary or any retired key."""

    def __init__(self, primary: str, retired: Sequence[str] = ()) -> None:
        try:
            self._keys = [Fernet(key.strip().encode()) for key in (primary, *retired)]
        except (ValueError, TypeError):
            raise SecretBoxError(
                "CORRIDOR_SECRET_KEY (and each retired key) must be a Fernet key: 32 random "
                "bytes in url-safe base64 (python -c 'from cryptography.fernet import Fernet; "
                "print(Fernet.generate_key().decode())')"
            ) from None
        self._fernet = MultiFernet(self._keys)
        self._key_texts = [key for key in (primary, *retired)]

    def derived_keys(self, purpose: bytes) -> list[bytes]:
        """32-byte keys for another use of the server key (HMAC-SHA256 of `purpose` under
        the primary key first, then under each retired one), so one secret serves both
        without a key used twice."""
        return [
            hmac.new(key.strip().encode(), purpose, hashlib.sha256).digest()
            for key in self._key_texts
        ]

    def encrypt(self, plaintext: str) -> str:
        return self._fernet.encrypt(plaintext.encode()).decode()

    def decrypt(self, token: str) -> str:
        try:
            return self._fernet.decrypt(token.encode()).decode()
        except InvalidToken:
            raise SecretBoxError(
                "A stored secret does not decrypt with CORRIDOR_SECRET_KEY or a retired key: "
                "the server key changed without listing the old one in "
                "CORRIDOR_SECRET_KEYS_RETIRED"
            ) from None

    def is_current(self, token: str) -> bool:
        """Whether the primary key (not a retired one) encrypted this token."""
        try:
            self._keys[0].decrypt(token.encode())
        except InvalidToken:
            return False
        return True

    def reencrypt(self, token: str) -> str:
        """The token encrypted again under the primary key."""
        try:
            return self._fernet.rotate(token.encode()).decode()
        except InvalidToken:
            raise SecretBoxError(
                "A stored secret does not decrypt with any configured key"
            ) from None


def new_key() -> str:
    return Fernet.generate_key().decode()


def data_directory(database_url: str) -> Path:
    """Where the embedded default keeps its files: beside the SQLite database, else .corridor."""
    for prefix in _SQLITE_PREFIXES:
        if database_url.startswith(prefix):
            path = database_url[len(prefix) :].split("?", 1)[0]
            if path and path != ":memory:":
                return Path(path).parent
    return DEFAULT_DATA_DIRECTORY


def key_from_file(directory: Path) -> str:
    """The key in `directory/secret.key`, written there first (0600) if there is none."""
    path = directory / KEY_FILE_NAME
    with contextlib.suppress(FileNotFoundError):
        return path.read_text().strip()
    directory.mkdir(parents=True, exist_ok=True)
    key = new_key()
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process wrote it first: use theirs
        return path.read_text().strip()
    with os.fdopen(descriptor, "w") as file:
        file.write(key + "\n")
    return key


def load(*, secret_key: str | None, retired: Sequence[str], database_url: str) -> SecretBox:
    primary = secret_key or key_from_file(data_directory(database_url))
    return SecretBox(primary, [key for key in retired if key.strip()])


def from_environment(database_url: str) -> SecretBox:
    """The box the CORRIDOR_* variables describe (for migrations, which have no settings)."""
    return load(
        secret_key=os.environ.get("CORRIDOR_SECRET_KEY") or None,
        retired=os.environ.get("CORRIDOR_SECRET_KEYS_RETIRED", "").split(","),
        database_url=database_url,
    )


_installed: SecretBox | None = None


def install(box: SecretBox) -> None:
    global _installed
    _installed = box


def current() -> SecretBox:
    if _installed is None:
        raise SecretBoxError("No server key installed (create_app or corridor worker sets it)")
    return _installed


@contextlib.contextmanager
def installed(box: SecretBox) -> Iterator[SecretBox]:
    """Use `box` inside the block, then the one before it again."""
    global _installed
    before = _installed
    _installed = box
    try:
        yield box
    finally:
        _installed = before
