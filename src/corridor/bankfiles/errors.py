"""The bank files' errors."""

from __future__ import annotations

from corridor.kit.errors import CorridorError, ValidationFailed


class UnreadableBankFile(ValidationFailed):
    def __init__(self, message: str) -> None:
        super().__init__("content", message)


class BankConnectionMissing(CorridorError):
    status, code = 409, "bank_connection_missing"

    def __init__(self) -> None:
        super().__init__("No bank connection is set: set CORRIDOR_BANK_SFTP_HOST (docs/rails.md)")
