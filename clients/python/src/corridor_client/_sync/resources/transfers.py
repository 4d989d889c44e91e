# Generated from corridor_client/_async/resources/transfers.py by clients/python/codegen.py.
# Do not edit: change the async original and run `make sdk-models`.
"""Transfers, the agent approvals of their drafts, quotes and fixed routes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from corridor_client import _calls
from corridor_client._sync._http import Pager, Resource
from corridor_client.models import (
    AgentApproval,
    DocumentRead,
    FixedRouteCreate,
    FixedRouteRead,
    FixedRouteUpdate,
    FixedRouteValidate,
    FixedRouteValidation,
    Flow,
    IntentQuoteCreate,
    QuoteCreate,
    QuoteRead,
    QuoteWithTransfer,
    ReceiptList,
    TransferCancel,
    TransferCreate,
    TransferDecision,
    TransferFund,
    TransferRead,
    TransferStatus,
    TransferUpdate,
)


class Transfers(Resource):
    def create(
        self,
        params: TransferCreate | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> TransferRead:
        """A DRAFT, or submitted at once with `confirm=True`. The flow, the legs and the
        destination amount are derived from `source`, `destination` and `amount`."""
        body = _calls.body(TransferCreate, params, fields)
        return self._send(_calls.create("/v1/transfers", body, idempotency_key), TransferRead)

    def list(
        self,
        *,
        status: TransferStatus | str | None = None,
        agent_approval_status: str | None = None,
        customer_id: str | None = None,
        flow: Flow | str | None = None,
        client_reference_id: str | None = None,
        created_after: datetime | None = None,
        created_before: datetime | None = None,
        include_child_organizations: bool | None = None,
        limit: int | None = None,
    ) -> Pager[TransferRead]:
        """`include_child_organizations=True`: also the organizations below the caller's
        (a console session or an unrestricted key), e.g. an operator's IN_REVIEW queue."""
        return self._list(
            "/v1/transfers",
            TransferRead,
            status=status,
            agentApprovalStatus=agent_approval_status,
            customerId=customer_id,
            flow=flow,
            clientReferenceId=client_reference_id,
            createdAfter=created_after,
            createdBefore=created_before,
            includeChildOrganizations=include_child_organizations,
            limit=limit,
        )

    def retrieve(self, transfer_id: str, *, expand: Sequence[str] | None = None) -> TransferRead:
        path = _calls.path("/v1/transfers/{}", transfer_id)
        return self._send(_calls.read(path, _calls.query(expand=expand)), TransferRead)

    def receipts(self, transfer_id: str) -> ReceiptList:
        """The signed receipts of an agent's payment, oldest first (API.md 9); check one
        offline with `corridor_client.receipts.verify(jws, jwks)`."""
        path = _calls.path("/v1/transfers/{}/receipts", transfer_id)
        return self._send(_calls.read(path), ReceiptList)

    def update(
        self,
        transfer_id: str,
        params: TransferUpdate | Mapping[str, Any] | None = None,
        /,
        **fields: Any,
    ) -> TransferRead:
        """Edit a DRAFT; its plan is computed again."""
        path = _calls.path("/v1/transfers/{}", transfer_id)
        body = _calls.body(TransferUpdate, params, fields)
        return self._send(_calls.update(path, body), TransferRead)

    def submit(self, transfer_id: str, *, idempotency_key: str | None = None) -> TransferRead:
        """DRAFT → PENDING (or IN_REVIEW, PENDING_AUTHORIZATION); the amount is held."""
        return self._action("/v1/transfers/{}/submit", transfer_id, None, idempotency_key)

    def confirm(self, transfer_id: str, *, idempotency_key: str | None = None) -> TransferRead:
        """Submit an unlocked intent at the rate of execution."""
        return self._action("/v1/transfers/{}/confirm", transfer_id, None, idempotency_key)

    def cancel(
        self,
        transfer_id: str,
        params: TransferCancel | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> TransferRead:
        body = _calls.optional_body(TransferCancel, params, fields)
        return self._action("/v1/transfers/{}/cancel", transfer_id, body, idempotency_key)

    def fund(
        self,
        transfer_id: str,
        params: TransferFund | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> TransferRead:
        """Pay a PENDING deposit flow from a balance (`account_id`) instead."""
        body = _calls.body(TransferFund, params, fields)
        return self._action("/v1/transfers/{}/fund", transfer_id, body, idempotency_key)

    def review(
        self,
        transfer_id: str,
        params: TransferDecision | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> TransferRead:
        """Console sessions only: `decision` APPROVE or REJECT of an IN_REVIEW transfer."""
        body = _calls.body(TransferDecision, params, fields)
        return self._action("/v1/transfers/{}/review", transfer_id, body, idempotency_key)

    def authorize(
        self,
        transfer_id: str,
        params: TransferDecision | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> TransferRead:
        """Console sessions only, another user than the submitter: PENDING_AUTHORIZATION."""
        body = _calls.body(TransferDecision, params, fields)
        return self._action("/v1/transfers/{}/authorize", transfer_id, body, idempotency_key)

    def decide_agent_approval(
        self,
        transfer_id: str,
        params: AgentApproval | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> TransferRead:
        """An owner's `decision` on an agent's parked draft: APPROVE submits it, DECLINE
        cancels it (with `reason`)."""
        body = _calls.body(AgentApproval, params, fields)
        return self._action("/v1/transfers/{}/agent-approval", transfer_id, body, idempotency_key)

    def list_documents(self, transfer_id: str, *, limit: int | None = None) -> Pager[DocumentRead]:
        """Documents attached with `documentIds` or uploaded for the transfer."""
        path = _calls.path("/v1/transfers/{}/documents", transfer_id)
        return self._list(path, DocumentRead, limit=limit)

    def quote_intent(
        self,
        params: IntentQuoteCreate | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> QuoteWithTransfer:
        """A DRAFT transfer and the quote that locks its rate, together."""
        body = _calls.body(IntentQuoteCreate, params, fields)
        return self._send(
            _calls.create("/v1/transfers/intents/quote", body, idempotency_key),
            QuoteWithTransfer,
        )

    def _action(
        self,
        template: str,
        transfer_id: str,
        body: Mapping[str, Any] | None,
        idempotency_key: str | None,
    ) -> TransferRead:
        call = _calls.action(_calls.path(template, transfer_id), body, idempotency_key)
        return self._send(call, TransferRead)


class Quotes(Resource):
    def create(
        self,
        params: QuoteCreate | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> QuoteRead:
        """A price for a conversion, held until `expires_at`."""
        body = _calls.body(QuoteCreate, params, fields)
        return self._send(_calls.create("/v1/quotes", body, idempotency_key), QuoteRead)

    def retrieve(self, quote_id: str) -> QuoteRead:
        return self._send(_calls.read(_calls.path("/v1/quotes/{}", quote_id)), QuoteRead)

    def confirm(self, quote_id: str, *, idempotency_key: str | None = None) -> QuoteWithTransfer:
        """Submit the quote's transfer at the locked rate."""
        path = _calls.path("/v1/quotes/{}/confirm", quote_id)
        return self._send(_calls.action(path, None, idempotency_key), QuoteWithTransfer)


class FixedRoutes(Resource):
    """Standing instructions: every deposit to the route's own account or address is
    paid out to its fixed destination."""

    def validate(
        self, params: FixedRouteValidate | Mapping[str, Any] | None = None, /, **fields: Any
    ) -> FixedRouteValidation:
        """Check a route as it would be created, creating nothing."""
        body = _calls.body(FixedRouteValidate, params, fields)
        call = _calls.action("/v1/fixed-routes/validate", body)
        return self._send(call, FixedRouteValidation)

    def create_virtual_bank_account(
        self,
        params: FixedRouteCreate | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> FixedRouteRead:
        body = _calls.body(FixedRouteCreate, params, fields)
        call = _calls.create("/v1/fixed-routes/virtual-bank-account", body, idempotency_key)
        return self._send(call, FixedRouteRead)

    def create_virtual_wallet(
        self,
        params: FixedRouteCreate | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> FixedRouteRead:
        body = _calls.body(FixedRouteCreate, params, fields)
        call = _calls.create("/v1/fixed-routes/virtual-wallet", body, idempotency_key)
        return self._send(call, FixedRouteRead)

    def list(
        self, *, customer_id: str | None = None, limit: int | None = None
    ) -> Pager[FixedRouteRead]:
        return self._list("/v1/fixed-routes", FixedRouteRead, customerId=customer_id, limit=limit)

    def retrieve(self, route_id: str) -> FixedRouteRead:
        path = _calls.path("/v1/fixed-routes/{}", route_id)
        return self._send(_calls.read(path), FixedRouteRead)

    def update(
        self,
        route_id: str,
        params: FixedRouteUpdate | Mapping[str, Any] | None = None,
        /,
        **fields: Any,
    ) -> FixedRouteRead:
        path = _calls.path("/v1/fixed-routes/{}", route_id)
        body = _calls.body(FixedRouteUpdate, params, fields)
        return self._send(_calls.update(path, body), FixedRouteRead)
