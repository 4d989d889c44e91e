"""`corridor transfers`: create, read, list and cancel transfers, as the organization's
owner (the service layer's own rules: planning, limits, approvals)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from corridor.cli.base import typer_app
from corridor.cli.context import Acting, act, organization_option
from corridor.cli.output import (
    console,
    fail,
    moment_shown,
    print_fields,
    print_json,
    print_listing,
    status_option,
    usage_error,
)

app = typer_app(
    "Transfers: money moved from a source to a destination (as /v1/transfers, acting as "
    "the organization's owner)."
)

JsonOption = Annotated[
    bool, typer.Option("--json", help="Print the transfer as the API shows it (JSON).")
]
TransferId = Annotated[str, typer.Argument(metavar="TRANSFER_ID", help="The transfer's id (tr_…).")]


def transfer_json(found: Any) -> dict[str, Any]:
    from corridor.transfers.schemas.transfer import transfer_json as as_json

    return as_json(found.transfer, found.legs)


def amount_shown(amount: dict[str, Any] | None) -> str:
    """{"currency": "USD", "value": "2550"} → "25.50 USD"."""
    from corridor.kit.money import MoneyError
    from corridor.tools.amounts import decimal_of

    if not amount:
        return ""
    try:
        return f"{decimal_of(int(amount['value']), amount['currency'])} {amount['currency']}"
    except (MoneyError, ValueError, KeyError):
        return f"{amount.get('value')} {amount.get('currency')} (minor units)"


def _end(part: dict[str, Any] | None) -> str:
    if not part:
        return ""
    named = part.get("accountId") or part.get("externalAccountId") or part.get("toAddress")
    rail = part.get("paymentRail")
    return " ".join(str(bit) for bit in (named, rail, part.get("currency")) if bit)


def _show(body: dict[str, Any]) -> None:
    print_fields(
        [
            ("id", body["id"]),
            ("status", body["status"]),
            ("flow", body.get("flow")),
            ("amount", amount_shown(body.get("sourceAmount"))),
            ("received", amount_shown(body.get("destinationAmount"))),
            ("customer", body.get("sourceCustomerId")),
            ("from", _end(body.get("source"))),
            ("to", _end(body.get("destination"))),
            ("reference", body.get("clientReferenceId")),
            ("created", moment_shown(body["createdAt"])),
        ]
    )


def _side(identifier: str, option: str) -> dict[str, str]:
    """An id given to --from or --to: a balance account (acc_…) or an external account
    (ext_…), as the API's accountId or externalAccountId."""
    if identifier.startswith("acc_"):
        return {"accountId": identifier}
    if identifier.startswith("ext_"):
        return {"externalAccountId": identifier}
    usage_error(
        f"{option}: {identifier!r} is neither a balance account (acc_…) nor an external "
        "account (ext_…)"
    )


# The request's fields as `transfers create` names them, for its error lines.
_OPTIONS = {
    "customerId": "--customer",
    "source": "--from",
    "source.accountId": "--from",
    "source.externalAccountId": "--from",
    "destination": "--to",
    "destination.accountId": "--to",
    "destination.externalAccountId": "--to",
    "destination.paymentRail": "--rail",
    "destination.currency": "--to-currency",
    "amount": "--amount",
    "amount.currency": "--currency",
    "clientReferenceId": "--reference",
}


@app.command("create")
def transfers_create(
    amount: Annotated[
        str,
        typer.Option(
            metavar="DECIMAL",
            help="The amount in major units as a decimal, such as 25.50 (not the API's minor "
            'units "2550"); never rounded.',
        ),
    ],
    currency: Annotated[
        str, typer.Option(metavar="CODE", help="The amount's currency: USD, EUR, USDC, …")
    ],
    source: Annotated[
        str,
        typer.Option("--from", metavar="ID", help="Where the money comes from: acc_… or ext_…."),
    ],
    destination: Annotated[
        str,
        typer.Option("--to", metavar="ID", help="Where it goes: acc_… or ext_…."),
    ],
    rail: Annotated[
        str | None,
        typer.Option(
            "--rail", metavar="RAIL", help="The destination's payment rail (ACH, WIRE, SEPA, …)."
        ),
    ] = None,
    to_currency: Annotated[
        str | None,
        typer.Option(metavar="CODE", help="The destination's currency, when it differs."),
    ] = None,
    customer: Annotated[
        str | None, typer.Option(metavar="ID", help="The customer it is for (cus_…).")
    ] = None,
    reference: Annotated[
        str | None, typer.Option(metavar="TEXT", help="Your reference (clientReferenceId).")
    ] = None,
    submit: Annotated[
        bool,
        typer.Option("--submit", help="Submit it at once (confirm: true) instead of a DRAFT."),
    ] = False,
    organization: Annotated[str | None, organization_option()] = None,
    as_json: JsonOption = False,
) -> None:
    """Create a transfer: a DRAFT, or submitted with --submit. The flow and the legs follow
    from --from and --to, as over the API."""
    from corridor.app import transfer_plugins
    from corridor.kit.errors import CorridorError
    from corridor.kit.money import MoneyError
    from corridor.kit.money import currency as currency_of
    from corridor.tools.amounts import minor_units_of
    from corridor.transfers import service
    from corridor.transfers.actions import Parked
    from corridor.transfers.schemas.requests import TransferCreate

    code = currency.strip().upper()
    try:
        currency_of(code)
    except MoneyError as error:
        usage_error(f"--currency: {error}")
    try:
        minor_units = minor_units_of(amount.strip(), code, field="--amount")
    except CorridorError as error:
        usage_error(error.message)
    target: dict[str, Any] = _side(destination, "--to")
    if rail:
        target["paymentRail"] = rail.upper()
    if to_currency:
        target["currency"] = to_currency.upper()
    request: dict[str, Any] = {
        "source": _side(source, "--from"),
        "destination": target,
        "amount": {"currency": code, "value": str(minor_units)},
        "confirm": submit,
    }
    if customer:
        request["customerId"] = customer
    if reference:
        request["clientReferenceId"] = reference

    async def work(acting: Acting):
        data = TransferCreate.model_validate(request)
        return await service.create_transfer(
            acting.session,
            caller=acting.caller,
            data=data,
            plugins=transfer_plugins(),
            now=acting.now,
        )

    outcome = act(organization, work, write=True, options=_OPTIONS)
    if isinstance(outcome, Parked):
        fail(
            f"{outcome.refusal.message} (draft {outcome.found.transfer.id} kept, awaiting "
            "the owner's approval)"
        )
    body = transfer_json(outcome)
    if as_json:
        print_json(body)
    else:
        _show(body)


@app.command("get")
def transfers_get(
    transfer_id: TransferId,
    organization: Annotated[str | None, organization_option()] = None,
    as_json: JsonOption = False,
) -> None:
    """Show a transfer: status, amounts, ends, reference."""
    from corridor.transfers import service

    async def work(acting: Acting):
        view = await service.read_transfer(
            acting.session, caller=acting.caller, transfer_id=transfer_id
        )
        return transfer_json(view.found)

    body = act(organization, work, write=False)
    if as_json:
        print_json(body)
    else:
        _show(body)


@app.command("list")
def transfers_list(
    status: Annotated[
        str | None,
        typer.Option(metavar="STATUS", help="Only this status (DRAFT, PENDING, COMPLETED, …)."),
    ] = None,
    customer: Annotated[
        str | None, typer.Option(metavar="ID", help="Only this customer's (cus_…).")
    ] = None,
    limit: Annotated[int, typer.Option(metavar="N", min=1, max=100, help="At most N.")] = 50,
    organization: Annotated[str | None, organization_option()] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print JSON lines, one transfer per line.")
    ] = False,
) -> None:
    """List the organization's transfers, newest first: id, status, amount, customer,
    created."""
    from corridor.kit.pagination import PageRequest
    from corridor.transfers import service
    from corridor.transfers.repository import TransferFilters
    from corridor.transfers.rules.states import TransferStatus

    chosen = status_option(TransferStatus, status, noun="transfer")
    wanted = None if chosen is None else chosen.value

    async def work(acting: Acting):
        page = await service.list_transfers(
            acting.session,
            caller=acting.caller,
            filters=TransferFilters(status=wanted, customer_id=customer),
            page=PageRequest(limit=limit, cursor=None),
        )
        return [transfer_json(found) for found in page.items]

    found = act(organization, work, write=False)
    print_listing(
        found,
        as_json=as_json,
        headers=["id", "status", "amount", "customer", "created"],
        row=lambda body: [
            body["id"],
            body["status"],
            amount_shown(body.get("sourceAmount")),
            body.get("sourceCustomerId"),
            moment_shown(body["createdAt"], date_only=True),
        ],
        optional=["customer"],
    )


@app.command("cancel")
def transfers_cancel(
    transfer_id: TransferId,
    reason: Annotated[
        str | None, typer.Option(metavar="TEXT", help="Why (kept on the transfer).")
    ] = None,
    organization: Annotated[str | None, organization_option()] = None,
    as_json: JsonOption = False,
) -> None:
    """Cancel a transfer before it is processing (as POST /v1/transfers/{id}/cancel)."""
    from corridor.transfers import actions

    async def work(acting: Acting):
        found = await actions.cancel_transfer(
            acting.session,
            caller=acting.caller,
            transfer_id=transfer_id,
            reason=reason,
            now=acting.now,
        )
        return transfer_json(found)

    body = act(organization, work, write=True)
    if as_json:
        print_json(body)
    else:
        console.print(
            f"Cancelled {body['id']}: now {body['status']}.", highlight=False, soft_wrap=True
        )
