# Generated from corridor_client/_async/resources/customers.py by clients/python/codegen.py.
# Do not edit: change the async original and run `make sdk-models`.
"""Customers, their verification, associated entities, and terms of service."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from corridor_client import _calls
from corridor_client._sync._http import Pager, Resource, Transport
from corridor_client.models import (
    AccountRead,
    AssociatedEntityCreate,
    AssociatedEntityRead,
    AssociatedEntityUpdate,
    BusinessCustomerCreate,
    BusinessVerification,
    CapabilitiesRead,
    ComplianceRequirementsRead,
    CustomerRead,
    CustomerStatus,
    CustomerType,
    CustomerUpdate,
    DepositRead,
    FixedRouteRead,
    IndividualCustomerCreate,
    IndividualVerification,
    RfiProgress,
    RfiProgressRead,
    RfiRead,
    TermsOfServiceCreate,
    TermsOfServiceRead,
    TransferRead,
    TreasuryBalancesRead,
    VerificationLinkRead,
    VerificationSessionConfiguration,
    VerificationSessionRead,
    VerificationStatusRead,
)


class AssociatedEntities(Resource):
    """Owners, directors and other people or companies attached to a business customer."""

    def create(
        self,
        customer_id: str,
        params: AssociatedEntityCreate | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> AssociatedEntityRead:
        path = _calls.path("/v1/customers/{}/associated-entities", customer_id)
        body = _calls.body(AssociatedEntityCreate, params, fields)
        return self._send(_calls.create(path, body, idempotency_key), AssociatedEntityRead)

    def retrieve(self, customer_id: str, entity_id: str) -> AssociatedEntityRead:
        path = _calls.path("/v1/customers/{}/associated-entities/{}", customer_id, entity_id)
        return self._send(_calls.read(path), AssociatedEntityRead)

    def update(
        self,
        customer_id: str,
        entity_id: str,
        params: AssociatedEntityUpdate | Mapping[str, Any] | None = None,
        /,
        **fields: Any,
    ) -> AssociatedEntityRead:
        path = _calls.path("/v1/customers/{}/associated-entities/{}", customer_id, entity_id)
        body = _calls.body(AssociatedEntityUpdate, params, fields)
        return self._send(_calls.update(path, body), AssociatedEntityRead)

    def delete(self, customer_id: str, entity_id: str) -> None:
        path = _calls.path("/v1/customers/{}/associated-entities/{}", customer_id, entity_id)
        self._send_for_nothing(_calls.delete(path))

    def create_verification_link(
        self, customer_id: str, entity_id: str, *, idempotency_key: str | None = None
    ) -> VerificationLinkRead:
        path = _calls.path(
            "/v1/customers/{}/associated-entities/{}/verification-link", customer_id, entity_id
        )
        return self._send(_calls.create(path, None, idempotency_key), VerificationLinkRead)


class Customers(Resource):
    def __init__(self, transport: Transport) -> None:
        super().__init__(transport)
        self.associated_entities = AssociatedEntities(transport)

    def create_individual(
        self,
        params: IndividualCustomerCreate | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> CustomerRead:
        """A person: `first_name`, `last_name`, `email`, and optionally the rest of the
        identity (`date_of_birth`, `address`, `tos_acceptance_id`, …)."""
        body = _calls.body(IndividualCustomerCreate, params, fields)
        return self._send(
            _calls.create("/v1/customers/individual", body, idempotency_key), CustomerRead
        )

    def create_business(
        self,
        params: BusinessCustomerCreate | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> CustomerRead:
        """A company: `legal_name`, `email`, and optionally the rest of its identity."""
        body = _calls.body(BusinessCustomerCreate, params, fields)
        return self._send(
            _calls.create("/v1/customers/business", body, idempotency_key), CustomerRead
        )

    def list(
        self,
        *,
        status: CustomerStatus | str | None = None,
        type: CustomerType | str | None = None,
        email: str | None = None,
        limit: int | None = None,
    ) -> Pager[CustomerRead]:
        return self._list(
            "/v1/customers", CustomerRead, status=status, type=type, email=email, limit=limit
        )

    def retrieve(self, customer_id: str, *, expand: Sequence[str] | None = None) -> CustomerRead:
        path = _calls.path("/v1/customers/{}", customer_id)
        return self._send(_calls.read(path, _calls.query(expand=expand)), CustomerRead)

    def update(
        self,
        customer_id: str,
        params: CustomerUpdate | Mapping[str, Any] | None = None,
        /,
        **fields: Any,
    ) -> CustomerRead:
        body = _calls.body(CustomerUpdate, params, fields)
        path = _calls.path("/v1/customers/{}", customer_id)
        return self._send(_calls.update(path, body), CustomerRead)

    def archive(self, customer_id: str, *, idempotency_key: str | None = None) -> CustomerRead:
        path = _calls.path("/v1/customers/{}/archive", customer_id)
        return self._send(_calls.action(path, None, idempotency_key), CustomerRead)

    def capabilities(self, customer_id: str) -> CapabilitiesRead:
        path = _calls.path("/v1/customers/{}/capabilities", customer_id)
        return self._send(_calls.read(path), CapabilitiesRead)

    def treasury_balances(self, customer_id: str) -> TreasuryBalancesRead:
        """Per currency available, held, pending and total across the customer's accounts,
        and their value in the organization's reporting currency."""
        path = _calls.path("/v1/customers/{}/treasury-balances", customer_id)
        return self._send(_calls.read(path), TreasuryBalancesRead)

    def compliance_requirements(self, customer_id: str) -> ComplianceRequirementsRead:
        path = _calls.path("/v1/customers/{}/compliance-requirements", customer_id)
        return self._send(_calls.read(path), ComplianceRequirementsRead)

    def save_individual_verification(
        self,
        customer_id: str,
        params: IndividualVerification | Mapping[str, Any] | None = None,
        /,
        **fields: Any,
    ) -> VerificationStatusRead:
        path = _calls.path("/v1/customers/{}/individual-verification", customer_id)
        body = _calls.body(IndividualVerification, params, fields)
        return self._send(_calls.update(path, body, "PUT"), VerificationStatusRead)

    def save_business_verification(
        self,
        customer_id: str,
        params: BusinessVerification | Mapping[str, Any] | None = None,
        /,
        **fields: Any,
    ) -> VerificationStatusRead:
        path = _calls.path("/v1/customers/{}/business-verification", customer_id)
        body = _calls.body(BusinessVerification, params, fields)
        return self._send(_calls.update(path, body, "PUT"), VerificationStatusRead)

    def submit_verification(
        self, customer_id: str, *, idempotency_key: str | None = None
    ) -> CustomerRead:
        """INCOMPLETE → UNDER_REVIEW."""
        path = _calls.path("/v1/customers/{}/submit-verification", customer_id)
        return self._send(_calls.action(path, None, idempotency_key), CustomerRead)

    def verification_status(self, customer_id: str) -> VerificationStatusRead:
        path = _calls.path("/v1/customers/{}/verification-status", customer_id)
        return self._send(_calls.read(path), VerificationStatusRead)

    def create_verification_session(
        self, customer_id: str, *, idempotency_key: str | None = None
    ) -> VerificationSessionRead:
        path = _calls.path("/v1/customers/{}/verification-sessions", customer_id)
        return self._send(_calls.create(path, None, idempotency_key), VerificationSessionRead)

    def verification_session_configuration(
        self, session_id: str
    ) -> VerificationSessionConfiguration:
        path = _calls.path("/v1/verification-sessions/{}/configuration", session_id)
        return self._send(_calls.read(path), VerificationSessionConfiguration)

    def pending_enhanced_diligence_rfi(self, customer_id: str) -> RfiRead:
        path = _calls.path("/v1/customers/{}/pending-enhanced-diligence-rfi", customer_id)
        return self._send(_calls.read(path), RfiRead)

    def save_rfi_progress(
        self,
        customer_id: str,
        params: RfiProgress | Mapping[str, Any] | None = None,
        /,
        **fields: Any,
    ) -> RfiProgressRead:
        path = _calls.path("/v1/customers/{}/pending-enhanced-diligence-rfi/progress", customer_id)
        body = _calls.body(RfiProgress, params, fields)
        return self._send(_calls.update(path, body), RfiProgressRead)

    def list_accounts(self, customer_id: str, *, limit: int | None = None) -> Pager[AccountRead]:
        """The customer's balance accounts, one per currency once it is ACTIVE."""
        path = _calls.path("/v1/customers/{}/accounts", customer_id)
        return self._list(path, AccountRead, limit=limit)

    def list_transfers(self, customer_id: str, *, limit: int | None = None) -> Pager[TransferRead]:
        path = _calls.path("/v1/customers/{}/transfers", customer_id)
        return self._list(path, TransferRead, limit=limit)

    def list_unmatched_deposits(
        self, customer_id: str, *, limit: int | None = None
    ) -> Pager[DepositRead]:
        path = _calls.path("/v1/customers/{}/unmatched-deposits", customer_id)
        return self._list(path, DepositRead, limit=limit)

    def list_fixed_routes(
        self, customer_id: str, *, limit: int | None = None
    ) -> Pager[FixedRouteRead]:
        path = _calls.path("/v1/customers/{}/fixed-routes", customer_id)
        return self._list(path, FixedRouteRead, limit=limit)


class TermsOfService(Resource):
    """Terms-of-service acceptance in two steps: create (PENDING), then accept."""

    def create(
        self,
        params: TermsOfServiceCreate | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> TermsOfServiceRead:
        body = _calls.optional_body(TermsOfServiceCreate, params, fields)
        return self._send(
            _calls.create("/v1/terms-of-service/acceptances", body, idempotency_key),
            TermsOfServiceRead,
        )

    def accept(
        self, acceptance_id: str, *, idempotency_key: str | None = None
    ) -> TermsOfServiceRead:
        path = _calls.path("/v1/terms-of-service/acceptances/{}/accept", acceptance_id)
        return self._send(_calls.action(path, None, idempotency_key), TermsOfServiceRead)

    def retrieve(self, acceptance_id: str) -> TermsOfServiceRead:
        path = _calls.path("/v1/terms-of-service/acceptances/{}", acceptance_id)
        return self._send(_calls.read(path), TermsOfServiceRead)
