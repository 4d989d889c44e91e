"""Lists are iterators that follow `nextCursor` page after page."""

from __future__ import annotations

from corridor_client import AsyncCorridor, Corridor
from tests.client.support import BANK_ACCOUNT, funded_payer


def _bank_accounts(corridor: Corridor, customer_id: str, count: int) -> list[str]:
    return [
        corridor.external_accounts.create(
            customer_id=customer_id, **{**BANK_ACCOUNT, "account_number": f"00012345{index:04}"}
        ).id
        for index in range(count)
    ]


def test_the_iterator_walks_every_page_newest_first(corridor: Corridor):
    payer = funded_payer(corridor)
    made = [payer.bank_account.id, *_bank_accounts(corridor, payer.customer.id, 4)]

    listing = corridor.external_accounts.list(customer_id=payer.customer.id, limit=2)
    assert [account.id for account in listing] == made[::-1]
    pages = list(listing.pages())
    assert [len(page.data) for page in pages] == [2, 2, 1]
    assert [page.has_more for page in pages] == [True, True, False]
    assert pages[-1].next_cursor is None

    first = listing.first_page()
    assert [account.id for account in first.data] == made[:-3:-1]
    assert first.next_cursor == pages[0].next_cursor


async def test_the_async_iterator_walks_every_page(
    corridor: Corridor, async_corridor: AsyncCorridor
):
    payer = funded_payer(corridor)
    made = [payer.bank_account.id, *_bank_accounts(corridor, payer.customer.id, 2)]

    listing = async_corridor.external_accounts.list(customer_id=payer.customer.id, limit=1)
    assert [account.id async for account in listing] == made[::-1]
    assert len([page async for page in listing.pages()]) == 3
