"""`corridor customers`: create, list and read customers, as the organization's owner."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from corridor.cli.base import typer_app
from corridor.cli.context import Acting, act, organization_option
from corridor.cli.output import (
    moment_shown,
    print_fields,
    print_json,
    print_listing,
    status_option,
    usage_error,
)

app = typer_app(
    "Customers: the people and businesses the organization pays for (as POST/GET "
    "/v1/customers, acting as the organization's owner)."
)

JsonOption = Annotated[
    bool, typer.Option("--json", help="Print the customer as the API shows it (JSON).")
]


def customer_json(customer: Any, accounts: list[Any] | None = None) -> dict[str, Any]:
    from corridor.customers.schemas.customer import CustomerAccount, CustomerRead

    body = CustomerRead.of(customer).to_json_dict()
    if accounts is not None:
        body["accounts"] = [
            CustomerAccount.model_validate(account).to_json_dict() for account in accounts
        ]
    return body


def _show(body: dict[str, Any]) -> None:
    print_fields(
        [
            ("id", body["id"]),
            ("name", body["name"]),
            ("type", body["type"]),
            (
                "status",
                body["status"] + (f" ({body['statusReason']})" if body.get("statusReason") else ""),
            ),
            ("email", body["email"]),
            ("created", moment_shown(body["createdAt"])),
            *(
                ("account", f"{account['id']}  {account['currency']}  {account['status']}")
                for account in body.get("accounts") or []
            ),
        ]
    )


@app.command("create")
def customers_create(
    email: Annotated[str, typer.Option(metavar="EMAIL", help="The customer's email.")],
    first_name: Annotated[
        str | None, typer.Option(metavar="NAME", help="An individual's first name.")
    ] = None,
    last_name: Annotated[
        str | None, typer.Option(metavar="NAME", help="An individual's last name.")
    ] = None,
    business: Annotated[
        str | None,
        typer.Option(
            "--business",
            metavar="LEGAL_NAME",
            help="Make a business customer with this legal name (instead of an individual).",
        ),
    ] = None,
    organization: Annotated[str | None, organization_option()] = None,
    as_json: JsonOption = False,
) -> None:
    """Create a customer: an individual (--first-name and --last-name) or a business
    (--business "Legal name"). It starts INCOMPLETE, as over the API."""
    from corridor.customers import service
    from corridor.customers.schemas.customer import BusinessCustomerCreate, IndividualCustomerCreate

    if business is not None and (first_name or last_name):
        usage_error("--business makes a business customer: leave out --first-name/--last-name")
    if business is None and not (first_name and last_name):
        usage_error("an individual needs --first-name and --last-name (or pass --business NAME)")

    async def work(acting: Acting):
        if business is not None:
            data: Any = BusinessCustomerCreate.model_validate(
                {"legalName": business, "email": email}
            )
            customer = await service.create_business(
                acting.session, caller=acting.caller, data=data, now=acting.now
            )
        else:
            data = IndividualCustomerCreate.model_validate(
                {"firstName": first_name, "lastName": last_name, "email": email}
            )
            customer = await service.create_individual(
                acting.session, caller=acting.caller, data=data, now=acting.now
            )
        return customer_json(customer)

    body = act(
        organization,
        work,
        write=True,
        options={
            "email": "--email",
            "firstName": "--first-name",
            "lastName": "--last-name",
            "legalName": "--business",
        },
    )
    if as_json:
        print_json(body)
    else:
        _show(body)


@app.command("list")
def customers_list(
    status: Annotated[
        str | None,
        typer.Option(metavar="STATUS", help="Only this status (INCOMPLETE, ACTIVE, …)."),
    ] = None,
    search: Annotated[
        str | None,
        typer.Option("--search", "-q", metavar="TEXT", help="A part of the name or email."),
    ] = None,
    limit: Annotated[int, typer.Option(metavar="N", min=1, max=100, help="At most N.")] = 50,
    organization: Annotated[str | None, organization_option()] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print JSON lines, one customer per line.")
    ] = False,
) -> None:
    """List the organization's customers, newest first: id, name, type, status, email,
    created."""
    from corridor.customers import service
    from corridor.customers.states import CustomerStatus
    from corridor.kit.pagination import PageRequest

    wanted = status_option(CustomerStatus, status, noun="customer")

    async def work(acting: Acting):
        page = await service.list_customers(
            acting.session,
            caller=acting.caller,
            page=PageRequest(limit=limit, cursor=None),
            status=wanted,
            type_=None,
            email=None,
            search=search,
        )
        return [customer_json(customer) for customer in page.items]

    found = act(organization, work, write=False)
    print_listing(
        found,
        as_json=as_json,
        headers=["id", "name", "type", "status", "email", "created"],
        row=lambda body: [
            body["id"],
            body["name"],
            body["type"],
            body["status"],
            body["email"],
            moment_shown(body["createdAt"], date_only=True),
        ],
        optional=["type"],
    )


@app.command("get")
def customers_get(
    customer_id: Annotated[
        str, typer.Argument(metavar="CUSTOMER_ID", help="The customer's id (cus_…).")
    ],
    organization: Annotated[str | None, organization_option()] = None,
    as_json: JsonOption = False,
) -> None:
    """Show a customer, with its balance accounts."""
    from corridor.customers import reading

    async def work(acting: Acting):
        view = await reading.read_customer(
            acting.session, caller=acting.caller, customer_id=customer_id, expand=["accounts"]
        )
        return customer_json(view.customer, view.accounts)

    body = act(organization, work, write=False)
    if as_json:
        print_json(body)
    else:
        _show(body)
