"""Wire shapes of counterparties, external bank accounts and external wallets (API.md §8)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field, StrictStr

from corridor.customers.schemas.customer import Email
from corridor.kit.schemas import (
    AddressIn,
    CountryCode,
    CurrencyCode,
    RequestModel,
    ResponseModel,
    SingleLineText,
    Timestamp,
)
from corridor.models.party import Counterparty, ExternalAccount, ExternalWallet
from corridor.parties.addresses import Chain
from corridor.parties.bank_codes import BankCodeKind
from corridor.parties.rules import AccountType, BeneficiaryType, PartyStatus

name_chars_max = 200
# ISO 20022's Max140Text, the longest name the payment rails carry.
account_holder_name_chars_max = 140
label_chars_max = 100
bank_name_chars_max = 200
# Generous bounds for text the checks then read character by character.
account_number_chars_max = 34
iban_chars_max = 42  # 34 characters, printed in groups of four with spaces
bank_code_chars_max = 64
wallet_address_chars_max = 64

ResourceId = Annotated[StrictStr, Field(min_length=1, max_length=64)]
PartyName = Annotated[SingleLineText, Field(min_length=1, max_length=name_chars_max)]
HolderName = Annotated[
    SingleLineText, Field(min_length=1, max_length=account_holder_name_chars_max)
]
Label = Annotated[SingleLineText, Field(max_length=label_chars_max)]
BankName = Annotated[SingleLineText, Field(min_length=1, max_length=bank_name_chars_max)]

_ADDRESS_EXAMPLE: dict[str, Any] = {
    "addressLine1": "Bahnhofstrasse 1",
    "city": "Zürich",
    "postalCode": "8001",
    "country": "CH",
}


class _OneOwner(RequestModel):
    """`customerId` (first party) or `counterpartyId` (third party), exactly one."""

    customer_id: ResourceId | None = None
    counterparty_id: ResourceId | None = None


# --- Counterparties -----------------------------------------------------------------------


class CounterpartyCreate(RequestModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "customerId": "cus_01jd3x0p6x9e3k2v1m8q4r7s5t",
                    "name": "Müller Maschinenbau GmbH",
                    "beneficiaryType": "BUSINESS",
                    "address": _ADDRESS_EXAMPLE,
                    "email": "ap@mueller.example",
                }
            ]
        }
    )

    customer_id: ResourceId = Field(description="The customer who pays this counterparty")
    name: PartyName
    beneficiary_type: BeneficiaryType
    address: AddressIn
    email: Email | None = None


class CounterpartyUpdate(RequestModel):
    """Only the fields sent change; `null` clears `email`."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"name": "Müller Maschinenbau AG", "email": None}],
        }
    )

    name: PartyName | None = None
    beneficiary_type: BeneficiaryType | None = None
    address: AddressIn | None = None
    email: Email | None = None


class TransliteratedAddress(ResponseModel):
    address_line1: str | None = None
    address_line2: str | None = None
    city: str | None = None
    state: str | None = None


class CounterpartyAddress(ResponseModel):
    address_line1: str
    address_line2: str | None = None
    city: str
    state: str | None = None
    postal_code: str | None = None
    country: str
    transliterated: TransliteratedAddress = Field(
        description="ASCII rendering for rails that carry only ASCII"
    )


class CounterpartyRead(ResponseModel):
    """The expanded counterparty of spec 2.8, with its customer and email."""

    id: str = Field(examples=["cp_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    customer_id: str
    name: str
    beneficiary_type: BeneficiaryType
    email: str | None = None
    address: CounterpartyAddress
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, counterparty: Counterparty) -> CounterpartyRead:
        return cls(
            id=counterparty.id,
            customer_id=counterparty.customer_id,
            name=counterparty.name,
            beneficiary_type=BeneficiaryType(counterparty.beneficiary_type),
            email=counterparty.email,
            address=CounterpartyAddress.model_validate(counterparty.address),
            created_at=counterparty.created_at,
            updated_at=counterparty.updated_at,
        )


# --- External bank accounts ---------------------------------------------------------------


class ExternalAccountCreate(_OneOwner):
    """A US account (`accountNumber` + `routingNumber`), an IBAN (+ `bic` for SWIFT), or
    an account number with a `bic` (SWIFT). Check digits are verified."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "customerId": "cus_01jd3x0p6x9e3k2v1m8q4r7s5t",
                    "currency": "USD",
                    "country": "US",
                    "accountHolderName": "Ada Lovelace",
                    "accountNumber": "000123456789",
                    "routingNumber": "021000021",
                    "accountType": "CHECKING",
                },
                {
                    "counterpartyId": "cp_01jd3x0p6x9e3k2v1m8q4r7s5t",
                    "currency": "EUR",
                    "country": "DE",
                    "accountHolderName": "Müller Maschinenbau GmbH",
                    "iban": "DE89370400440532013000",
                    "bic": "COBADEFFXXX",
                },
            ]
        }
    )

    currency: CurrencyCode
    country: CountryCode
    account_holder_name: HolderName
    account_number: (
        Annotated[StrictStr, Field(min_length=1, max_length=account_number_chars_max)] | None
    ) = None
    routing_number: Annotated[StrictStr, Field(min_length=1, max_length=11)] | None = None
    iban: Annotated[StrictStr, Field(min_length=1, max_length=iban_chars_max)] | None = None
    bic: Annotated[StrictStr, Field(min_length=1, max_length=11)] | None = None
    sort_code: Annotated[StrictStr, Field(min_length=1, max_length=8)] | None = None
    bank_name: BankName | None = None
    account_type: AccountType | None = None
    label: Label | None = None


class ExternalAccountUpdate(RequestModel):
    """Only the fields sent change; the numbers cannot (add a new account instead)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"accountHolderName": "Ada King", "label": "Payroll", "bankName": None}]
        }
    )

    account_holder_name: HolderName | None = None
    bank_name: BankName | None = None
    account_type: AccountType | None = None
    label: Label | None = None


class ExternalAccountRead(ResponseModel):
    """Never the full account number or IBAN: only their last four characters."""

    id: str = Field(examples=["ext_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    customer_id: str | None = Field(description="Set when the account is the customer's own")
    counterparty_id: str | None = Field(description="Set when the account is a counterparty's")
    status: PartyStatus
    currency: str
    country: str
    account_holder_name: str
    bank_name: str | None = None
    account_number_last4: str | None = None
    routing_number: str | None = None
    iban_last4: str | None = None
    bic: str | None = None
    sort_code: str | None = None
    account_type: AccountType | None = None
    label: str | None = None
    supported_rails: list[str]
    is_third_party: bool = Field(description="True exactly when a counterparty owns it")
    created_at: Timestamp
    updated_at: Timestamp
    closed_at: Timestamp | None = None

    @classmethod
    def of(cls, account: ExternalAccount) -> ExternalAccountRead:
        return cls(
            id=account.id,
            customer_id=account.customer_id,
            counterparty_id=account.counterparty_id,
            status=PartyStatus(account.status),
            currency=account.currency,
            country=account.country,
            account_holder_name=account.account_holder_name,
            bank_name=account.bank_name,
            account_number_last4=account.account_number_last4,
            routing_number=account.routing_number,
            iban_last4=account.iban[-4:] if account.iban else None,
            bic=account.bic,
            sort_code=account.sort_code,
            account_type=AccountType(account.account_type) if account.account_type else None,
            label=account.label,
            supported_rails=list(account.supported_rails),
            is_third_party=account.counterparty_id is not None,
            created_at=account.created_at,
            updated_at=account.updated_at,
            closed_at=account.closed_at,
        )


class BankCodeValidation(RequestModel):
    """`country` and exactly one of `routingNumber`, `iban`, `bic`, `sortCode`."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"country": "US", "routingNumber": "021000021"},
                {"country": "DE", "iban": "DE89370400440532013000"},
                {"country": "DE", "bic": "DEUTDEFF"},
            ]
        }
    )

    country: CountryCode
    routing_number: Annotated[StrictStr, Field(max_length=bank_code_chars_max)] | None = None
    iban: Annotated[StrictStr, Field(max_length=bank_code_chars_max)] | None = None
    bic: Annotated[StrictStr, Field(max_length=bank_code_chars_max)] | None = None
    sort_code: Annotated[StrictStr, Field(max_length=bank_code_chars_max)] | None = None

    def codes_sent(self) -> list[tuple[BankCodeKind, str]]:
        sent = {
            BankCodeKind.ROUTING_NUMBER: self.routing_number,
            BankCodeKind.IBAN: self.iban,
            BankCodeKind.BIC: self.bic,
            BankCodeKind.SORT_CODE: self.sort_code,
        }
        return [(kind, value) for kind, value in sent.items() if value is not None]


class BankCodeValidationRead(ResponseModel):
    valid: bool
    bank_name: str | None = Field(default=None, description="When the code tells it")
    reason: str | None = Field(default=None, description="Why the code is not valid")


# --- External wallets ---------------------------------------------------------------------


class ExternalWalletCreate(_OneOwner):
    """EVM addresses are 0x + 40 hex digits (a mixed-case one must carry a correct EIP-55
    checksum); Solana: base58 of 32 bytes; Tron: base58check, starting with T."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "customerId": "cus_01jd3x0p6x9e3k2v1m8q4r7s5t",
                    "chain": "ETHEREUM",
                    "address": "0x52908400098527886E0F7030069857D2E4169EE7",
                    "label": "Cold storage",
                }
            ]
        }
    )

    chain: Chain
    address: Annotated[StrictStr, Field(min_length=1, max_length=wallet_address_chars_max)]
    label: Label | None = None


class ExternalWalletUpdate(RequestModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"label": "Treasury"}]})

    label: Label | None = None


class ExternalWalletRead(ResponseModel):
    id: str = Field(examples=["ewa_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    customer_id: str | None = Field(description="Set when the wallet is the customer's own")
    counterparty_id: str | None = Field(description="Set when the wallet is a counterparty's")
    chain: Chain
    address: str
    label: str | None = None
    status: PartyStatus
    is_third_party: bool = Field(description="True exactly when a counterparty owns it")
    created_at: Timestamp
    updated_at: Timestamp
    closed_at: Timestamp | None = None

    @classmethod
    def of(cls, wallet: ExternalWallet) -> ExternalWalletRead:
        return cls(
            id=wallet.id,
            customer_id=wallet.customer_id,
            counterparty_id=wallet.counterparty_id,
            chain=Chain(wallet.chain),
            address=wallet.address,
            label=wallet.label,
            status=PartyStatus(wallet.status),
            is_third_party=wallet.counterparty_id is not None,
            created_at=wallet.created_at,
            updated_at=wallet.updated_at,
            closed_at=wallet.closed_at,
        )
