"""Pieces the tool declarations share: ids, pages, the transfer result."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StrictStr

from corridor.kit.pagination import PageRequest
from corridor.tools.base import ToolInput
from corridor.tools.results import TransferResult
from corridor.transfers.lifecycle import TransferWithLegs
from corridor.transfers.schemas.transfer import TransferRead

tool_page_size_default = 20
tool_page_size_max = 100

Identifier = Annotated[StrictStr, Field(min_length=1, max_length=64)]
CustomerId = Annotated[Identifier, Field(description="A customer id (cus_…)")]
AccountId = Annotated[Identifier, Field(description="A balance account id (acc_…)")]
TransferId = Annotated[Identifier, Field(description="A transfer id (tfr_…)")]
AgentId = Annotated[Identifier, Field(description="An agent id (agt_…)")]
CounterpartyId = Annotated[Identifier, Field(description="A counterparty id (cp_…)")]


class PagedInput(ToolInput):
    limit: Annotated[int, Field(ge=1, le=tool_page_size_max)] = Field(
        default=tool_page_size_default, description="How many to return, newest first"
    )
    cursor: Identifier | None = Field(
        default=None, description="`nextCursor` of the previous answer, for the next page"
    )

    def page(self) -> PageRequest:
        return PageRequest.checked(limit=self.limit, cursor=self.cursor)


def transfer_result(found: TransferWithLegs) -> TransferResult:
    return TransferResult.of(TransferRead.of(found.transfer, found.legs))
