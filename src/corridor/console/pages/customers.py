"""Customers: the list with the list API's filters and its search (`q`), and one customer
in full (status, what is still missing, balance accounts with their balances, recent
transfers, documents)."""

from __future__ import annotations

from fastapi import Response

from corridor.accounts.schemas import AccountRead, BalanceRead
from corridor.console.layout import page
from corridor.console.listing import listing_of
from corridor.console.pages.transfers import transfer_rows
from corridor.console.routing import console_router
from corridor.console.session import ConsolePage
from corridor.customers import reading
from corridor.customers import service as customers
from corridor.customers.requirements import missing
from corridor.customers.schemas.customer import CustomerRead
from corridor.customers.states import CustomerStatus, CustomerType
from corridor.documents import service as documents
from corridor.documents.schemas import DocumentRead
from corridor.kit.errors import ValidationFailed
from corridor.kit.pagination import PageRequest
from corridor.transfers import service as transfers

router = console_router()

FILTERS = ("q", "status", "type")
# What a customer's page shows of its history; the transfers page has the rest.
recent_transfers_max = 10
recent_documents_max = 20


def _choice(name: str, value: str | None, allowed: list[str]) -> str | None:
    if value is not None and value not in allowed:
        raise ValidationFailed(name, f"must be one of {', '.join(allowed)}")
    return value


def _status(value: str | None) -> CustomerStatus | None:
    chosen = _choice("status", value, [status.value for status in CustomerStatus])
    return CustomerStatus(chosen) if chosen else None


def _type(value: str | None) -> CustomerType | None:
    chosen = _choice("type", value, [kind.value for kind in CustomerType])
    return CustomerType(chosen) if chosen else None


@router.get("/customers")
async def customer_list(console: ConsolePage) -> Response:
    listing = listing_of(console.request, filters=FILTERS)
    found = await customers.list_customers(
        console.session,
        caller=console.caller,
        page=listing.page,
        status=_status(listing.get("status")),
        type_=_type(listing.get("type")),
        email=None,
        search=listing.get("q"),
    )
    return page(
        console,
        "customers/list.html",
        listing=listing,
        found=found,
        rows=[CustomerRead.of(customer) for customer in found.items],
        statuses=list(CustomerStatus),
        types=list(CustomerType),
    )


@router.get("/customers/{customer_id}")
async def customer_detail(customer_id: str, console: ConsolePage) -> Response:
    view = await reading.read_customer(
        console.session, caller=console.caller, customer_id=customer_id, expand=["accounts"]
    )
    _, requirements = await reading.read_compliance_requirements(
        console.session, caller=console.caller, customer_id=customer_id
    )
    now = console.now()
    accounts = [
        (AccountRead.of(account), BalanceRead.of(account, as_of=now))
        for account in view.accounts or []
    ]
    recent = await transfers.list_transfers(
        console.session,
        caller=console.caller,
        filters=transfers.TransferFilters(customer_id=customer_id),
        page=PageRequest(limit=recent_transfers_max, cursor=None),
    )
    rows, names = await transfer_rows(console, recent)
    files = await documents.list_documents(
        console.session,
        caller=console.caller,
        filters=documents.DocumentFilters(customer_id=customer_id),
        page=PageRequest(limit=recent_documents_max, cursor=None),
    )
    return page(
        console,
        "customers/detail.html",
        customer=CustomerRead.of(view.customer),
        requirements=requirements,
        missing=missing(requirements),
        accounts=accounts,
        rows=rows,
        names=names,
        more_transfers=recent.has_more,
        documents=[DocumentRead.of(document) for document in files.items],
        more_documents=files.has_more,
    )
