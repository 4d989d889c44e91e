"""Pure address rules: blockchain address checks per chain, and postal address transliteration."""

from __future__ import annotations

import hashlib
import re
from enum import StrEnum
from typing import Any

from anyascii import anyascii
from Crypto.Hash import keccak


class Chain(StrEnum):
    """The chain rails an external wallet can be on (rail names of API.md section 8)."""

    ETHEREUM = "ETHEREUM"
    BASE = "BASE"
    POLYGON = "POLYGON"
    SOLANA = "SOLANA"
    TRON = "TRON"


EVM_CHAINS = frozenset({Chain.ETHEREUM, Chain.BASE, Chain.POLYGON})

_BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BASE58_VALUES = {character: index for index, character in enumerate(_BASE58_ALPHABET)}
_EVM_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
solana_address_chars_min, solana_address_chars_max = 32, 44
solana_public_key_bytes = 32
tron_address_chars = 34
tron_payload_bytes = 25
tron_version_byte = 0x41
checksum_bytes = 4


# --- Blockchain addresses -----------------------------------------------------------------


def address_problem(chain: Chain, address: str) -> str | None:
    """Why `address` is not an address on `chain`, or None when it is one."""
    if chain in EVM_CHAINS:
        return _evm_problem(address)
    if chain is Chain.SOLANA:
        return _solana_problem(address)
    return _tron_problem(address)


def eip55_checksummed(address: str) -> str:
    """The EIP-55 mixed-case form of an EVM address (0x + 40 hex digits, any case)."""
    digits = address[2:].lower()
    hashed = keccak.new(digest_bits=256, data=digits.encode("ascii")).hexdigest()
    return "0x" + "".join(
        digit.upper() if int(nibble, 16) >= 8 else digit
        for digit, nibble in zip(digits, hashed[: len(digits)], strict=True)
    )


def _evm_problem(address: str) -> str | None:
    if not _EVM_ADDRESS.match(address):
        return "must be 0x followed by 40 hexadecimal digits"
    digits = address[2:]
    if digits == digits.lower() or digits == digits.upper():
        return None  # a single case carries no checksum (EIP-55)
    if address != eip55_checksummed(address):
        return "mixed-case address with a wrong EIP-55 checksum"
    return None


def base58_decode(text: str) -> bytes | None:
    """The bytes `text` encodes in Bitcoin's base58 alphabet, or None if it is not base58."""
    number = 0
    for character in text:
        value = _BASE58_VALUES.get(character)
        if value is None:
            return None
        number = number * 58 + value
    leading_zeros = len(text) - len(text.lstrip("1"))
    body = number.to_bytes((number.bit_length() + 7) // 8, "big") if number else b""
    return b"\x00" * leading_zeros + body


def _solana_problem(address: str) -> str | None:
    if not solana_address_chars_min <= len(address) <= solana_address_chars_max:
        return f"must be {solana_address_chars_min} to {solana_address_chars_max} base58 characters"
    decoded = base58_decode(address)
    if decoded is None:
        return "must be base58 (no 0, O, I or l)"
    if len(decoded) != solana_public_key_bytes:
        return f"must decode to {solana_public_key_bytes} bytes, not {len(decoded)}"
    return None


def _tron_problem(address: str) -> str | None:
    if len(address) != tron_address_chars or not address.startswith("T"):
        return f"must be {tron_address_chars} base58 characters starting with T"
    decoded = base58_decode(address)
    if decoded is None:
        return "must be base58 (no 0, O, I or l)"
    if len(decoded) != tron_payload_bytes or decoded[0] != tron_version_byte:
        return f"must decode to {tron_payload_bytes} bytes starting with 0x41"
    payload, checksum = decoded[:-checksum_bytes], decoded[-checksum_bytes:]
    if hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:checksum_bytes] != checksum:
        return "wrong base58check checksum"
    return None


# --- Postal addresses ---------------------------------------------------------------------

TRANSLITERATED_FIELDS = ("addressLine1", "addressLine2", "city", "state")


def transliterate(text: str | None) -> str | None:
    """An ASCII rendering of `text` ("Zürich" → "Zurich", "Москва" → "Moskva")."""
    return None if text is None else anyascii(text)


def with_transliteration(address: dict[str, Any]) -> dict[str, Any]:
    """The address (camelCase keys) with `transliterated` added: what rails that only carry
    ASCII (ACH, SWIFT MT messages) send instead of the original."""
    original = {key: value for key, value in address.items() if key != "transliterated"}
    return {
        **original,
        "transliterated": {
            field: transliterate(original.get(field)) for field in TRANSLITERATED_FIELDS
        },
    }
