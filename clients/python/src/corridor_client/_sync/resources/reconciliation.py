# Generated from corridor_client/_async/resources/reconciliation.py by clients/python/codegen.py.
# Do not edit: change the async original and run `make sdk-models`.
"""Reconciliation: bank statements matched to payments, and the exceptions to resolve."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from corridor_client import _calls
from corridor_client._sync._http import Pager, Resource
from corridor_client.models import (
    BankStatementImport,
    BankStatementLineRead,
    BankStatementLineResolve,
    BankStatementRead,
)


class Reconciliation(Resource):
    def import_statement(
        self,
        params: BankStatementImport | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> BankStatementRead:
        """Import a camt.053 (`name`, `content`): every line matched or an exception."""
        body = _calls.body(BankStatementImport, params, fields)
        return self._send(
            _calls.create("/v1/reconciliation/statements", body, idempotency_key), BankStatementRead
        )

    def retrieve_statement(self, statement_id: str) -> BankStatementRead:
        path = _calls.path("/v1/reconciliation/statements/{}", statement_id)
        return self._send(_calls.read(path), BankStatementRead)

    def list_lines(
        self,
        *,
        status: str | None = None,
        statement_id: str | None = None,
        limit: int | None = None,
    ) -> Pager[BankStatementLineRead]:
        """`status="EXCEPTION"`: the exceptions list."""
        return self._list(
            "/v1/reconciliation/lines",
            BankStatementLineRead,
            status=status,
            statementId=statement_id,
            limit=limit,
        )

    def resolve(
        self,
        line_id: str,
        params: BankStatementLineResolve | Mapping[str, Any] | None = None,
        /,
        **fields: Any,
    ) -> BankStatementLineRead:
        """Resolve an exception: `resolution`, optionally `transfer_id`."""
        path = _calls.path("/v1/reconciliation/lines/{}/resolve", line_id)
        body = _calls.body(BankStatementLineResolve, params, fields)
        return self._send(_calls.action(path, body), BankStatementLineRead)
