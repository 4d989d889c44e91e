"""Pure address rules: EIP-55, base58, Solana and Tron addresses, transliteration."""

from __future__ import annotations

import hashlib

import pytest

from corridor.parties.addresses import (
    Chain,
    address_problem,
    base58_decode,
    eip55_checksummed,
    transliterate,
    with_transliteration,
)

# The test vectors of EIP-55 itself.
EIP55_VECTORS = [
    "0x52908400098527886E0F7030069857D2E4169EE7",
    "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
    "0xde709f2102306220921060314715629080e2fb77",
    "0x27b1fdb04752bbc536007a920d24acb045561c26",
    "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
    "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
    "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
    "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
]


@pytest.mark.parametrize("address", EIP55_VECTORS)
def test_eip55_checksum_matches_the_specification_vectors(address):
    assert eip55_checksummed(address.lower()) == address
    assert address_problem(Chain.ETHEREUM, address) is None


def test_keccak_is_keccak_256_not_sha3():
    # keccak256("") differs from sha3_256(""); EIP-55 needs the former.
    from Crypto.Hash import keccak

    empty = keccak.new(digest_bits=256, data=b"").hexdigest()
    assert empty == "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
    assert empty != hashlib.sha3_256(b"").hexdigest()


def test_every_single_case_flip_of_a_checksummed_address_is_caught():
    address = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
    for index, character in enumerate(address):
        if index < 2 or not character.isalpha():
            continue
        flipped = address[:index] + character.swapcase() + address[index + 1 :]
        assert address_problem(Chain.BASE, flipped) is not None, flipped


def test_base58_decoding_keeps_leading_zero_bytes_and_refuses_other_characters():
    assert base58_decode("1" * 32) == bytes(32)
    assert base58_decode("2") == b"\x01"
    assert base58_decode("z") == bytes([57])
    assert base58_decode("") == b""
    for character in "0OIl+/ ":
        assert base58_decode(f"abc{character}") is None


def test_tron_checksum_is_double_sha256_over_the_version_and_body():
    body = bytes.fromhex("41a614f803b6fd780986a42c78ec9c7f77e6ded13c")
    decoded = base58_decode("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")
    assert decoded is not None
    assert decoded[:21] == body
    assert decoded[21:] == hashlib.sha256(hashlib.sha256(body).digest()).digest()[:4]


def test_strange_text_never_raises():
    for text in ("", "T", "0x", "ß" * 40, "\u202e" * 34, "T" + "1" * 33, "1" * 44):
        for chain in Chain:
            assert isinstance(address_problem(chain, text), str)


@pytest.mark.parametrize(
    ("text", "ascii_text"),
    [
        ("Straße 5", "Strasse 5"),
        ("Zürich", "Zurich"),
        ("Москва", "Moskva"),
        ("São Paulo", "Sao Paulo"),
        ("Łódź", "Lodz"),
        ("1 Market Street", "1 Market Street"),
    ],
)
def test_transliteration_gives_ascii(text, ascii_text):
    assert transliterate(text) == ascii_text


def test_with_transliteration_covers_the_four_spec_fields_and_replaces_an_old_one():
    address = {
        "addressLine1": "Straße 5",
        "addressLine2": None,
        "city": "Zürich",
        "postalCode": "8001",
        "country": "CH",
        "transliterated": {"city": "stale"},
    }
    result = with_transliteration(address)
    assert result["transliterated"] == {
        "addressLine1": "Strasse 5",
        "addressLine2": None,
        "city": "Zurich",
        "state": None,
    }
    assert result["postalCode"] == "8001"
