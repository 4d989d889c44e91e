"""The parties domain's vocabulary (pure): beneficiary types, statuses, bank account types."""

from __future__ import annotations

from enum import StrEnum


class BeneficiaryType(StrEnum):
    INDIVIDUAL = "INDIVIDUAL"
    BUSINESS = "BUSINESS"


class PartyStatus(StrEnum):
    ACTIVE = "ACTIVE"
    CLOSED = "CLOSED"


class AccountType(StrEnum):
    CHECKING = "CHECKING"
    SAVINGS = "SAVINGS"
