"""The customers domain's vocabulary (pure): associated-entity roles and the answers the
verification questions take."""

from __future__ import annotations

from enum import StrEnum


class EntityRole(StrEnum):
    BENEFICIAL_OWNER = "BENEFICIAL_OWNER"
    CONTROL_PERSON = "CONTROL_PERSON"
    DIRECTOR = "DIRECTOR"
    AUTHORIZED_SIGNER = "AUTHORIZED_SIGNER"


class IdDocumentType(StrEnum):
    PASSPORT = "PASSPORT"
    DRIVERS_LICENSE = "DRIVERS_LICENSE"
    NATIONAL_ID = "NATIONAL_ID"


class BusinessType(StrEnum):
    CORPORATION = "CORPORATION"
    LLC = "LLC"
    PARTNERSHIP = "PARTNERSHIP"
    SOLE_PROPRIETORSHIP = "SOLE_PROPRIETORSHIP"
    NON_PROFIT = "NON_PROFIT"
    TRUST = "TRUST"
    OTHER = "OTHER"


class SourceOfFunds(StrEnum):
    BUSINESS_REVENUE = "BUSINESS_REVENUE"
    INVESTMENT = "INVESTMENT"
    LOANS = "LOANS"
    DONATIONS = "DONATIONS"
    SAVINGS = "SAVINGS"
    OTHER = "OTHER"
