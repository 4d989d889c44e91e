# Generated from corridor_client/_async/resources/bank_files.py by clients/python/codegen.py.
# Do not edit: change the async original and run `make sdk-models`.
"""Bank files: NACHA files and ISO 20022 messages written for the bank, and its answers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from corridor_client import _calls
from corridor_client._sync._http import Pager, Resource
from corridor_client.models import BankFileEntries, BankFileImport, BankFileRead


class BankFiles(Resource):
    def list(
        self,
        *,
        direction: str | None = None,
        rail: str | None = None,
        status: str | None = None,
        limit: int | None = None,
    ) -> Pager[BankFileRead]:
        """Files for the bank (`direction="OUTGOING"`) and from it (`"INCOMING"`)."""
        return self._list(
            "/v1/bank-files",
            BankFileRead,
            direction=direction,
            rail=rail,
            status=status,
            limit=limit,
        )

    def retrieve(self, bank_file_id: str) -> BankFileRead:
        path = _calls.path("/v1/bank-files/{}", bank_file_id)
        return self._send(_calls.read(path), BankFileRead)

    def content(self, bank_file_id: str) -> str:
        """The file itself: NACHA text or ISO 20022 XML."""
        path = _calls.path("/v1/bank-files/{}/content", bank_file_id)
        response = self._transport.send(_calls.read(path))
        return response.text

    def entries(self, bank_file_id: str) -> BankFileEntries:
        """The payments the file carries (or answered), with their state."""
        path = _calls.path("/v1/bank-files/{}/entries", bank_file_id)
        return self._send(_calls.read(path), BankFileEntries)

    def simulate_import(
        self,
        params: BankFileImport | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> BankFileRead:
        """Sandbox: read `content` as if the bank had sent it (returns, NOCs, status
        reports)."""
        body = _calls.body(BankFileImport, params, fields)
        return self._send(
            _calls.create("/v1/sandbox/bank-files/imports", body, idempotency_key), BankFileRead
        )
