"""The audit chain's refusals."""

from __future__ import annotations

from corridor.kit.errors import Forbidden


class AuditReadForbidden(Forbidden):
    def __init__(self) -> None:
        super().__init__(
            "The audit chain is the organization's: a caller bound to one customer (other "
            "than an agent's key, which reads its own agent's records) cannot read it"
        )
