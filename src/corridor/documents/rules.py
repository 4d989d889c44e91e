"""Documents' pure rules: purposes, accepted types and sizes, what the bytes really are, and
the signature of Corridor's own upload URLs."""

from __future__ import annotations

import base64
import hashlib
import hmac
from enum import StrEnum

import filetype


class DocumentStatus(StrEnum):
    PENDING_UPLOAD = "PENDING_UPLOAD"
    UPLOADED = "UPLOADED"
    ARCHIVED = "ARCHIVED"
    REJECTED = "REJECTED"


class DocumentPurpose(StrEnum):
    PROOF_OF_ADDRESS = "proof_of_address"
    ID_FRONT = "id_front"
    ID_BACK = "id_back"
    SELFIE = "selfie"
    PASSPORT = "passport"
    BUSINESS_REGISTRATION = "business_registration"
    BANK_STATEMENT = "bank_statement"
    INVOICE = "invoice"
    CONTRACT = "contract"
    SOURCE_OF_FUNDS = "source_of_funds"
    OTHER = "other"


# The types a document may be, each recognised from its first bytes (never from its name).
ACCEPTED_CONTENT_TYPES = (
    "application/pdf",
    "image/jpeg",
    "image/png",
    "image/webp",
    "image/heic",
    "image/tiff",
)
document_bytes_max = 25 * 1024 * 1024
file_name_chars_max = 255
# How long an upload URL works, and how many leading bytes identify a file's type.
upload_url_lifetime_s = 15 * 60
sniff_bytes = 8 * 1024


def file_name_problem(name: str) -> str | None:
    """Why a file name cannot be kept as given, or None: a name, not a path."""
    if not name.strip():
        return "must not be blank"
    if "/" in name or "\\" in name:
        return "must be a file name without a folder (no / or \\)"
    if any(ord(character) < 32 or ord(character) == 127 for character in name):
        return "must not contain control characters"
    if name in {".", ".."}:
        return "must be a file name"
    return None


def sniffed_content_type(head: bytes) -> str | None:
    """The type the bytes are, from their magic numbers; None when not recognised."""
    kind = filetype.guess(head)
    if kind is None:
        return None
    # filetype names HEIC/HEIF and TIFF variants by their registered types already.
    return str(kind.mime)


def _mac(key: bytes, document_id: str, expires_unix: int) -> bytes:
    message = f"PUT\n/uploads/{document_id}\n{expires_unix}".encode()
    return hmac.new(key, message, hashlib.sha256).digest()


def upload_signature(key: bytes, document_id: str, expires_unix: int) -> str:
    """HMAC-SHA256 over the method, the path and the expiry, base64url without padding."""
    return base64.urlsafe_b64encode(_mac(key, document_id, expires_unix)).rstrip(b"=").decode()


def signature_matches(key: bytes, document_id: str, expires_unix: int, signature: str) -> bool:
    """Constant-time comparison with the signature this key makes."""
    expected = upload_signature(key, document_id, expires_unix)
    return hmac.compare_digest(expected.encode(), signature.encode("utf-8", "replace"))
