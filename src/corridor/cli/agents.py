"""`corridor agents`: the AI agents that spend for a customer within limits, as the
organization's owner."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from corridor.cli.base import typer_app
from corridor.cli.context import Acting, act, organization_option
from corridor.cli.output import moment_shown, print_fields, print_json, print_listing, usage_error

app = typer_app(
    "Agents: software that pays for a customer from one account, within limits (as "
    "/v1/agents, acting as the organization's owner)."
)

JsonOption = Annotated[
    bool, typer.Option("--json", help="Print the agent as the API shows it (JSON).")
]


def agent_json(agent: Any) -> dict[str, Any]:
    from corridor.agents.schemas import AgentRead

    return AgentRead.of(agent).to_json_dict()


def _limits_shown(limits: dict[str, Any]) -> str:
    from corridor.cli.transfers import amount_shown

    parts = [
        f"{name} {amount_shown({'currency': limits['currency'], 'value': limits[key]})}"
        for key, name in (
            ("perTransfer", "per transfer"),
            ("daily", "daily"),
            ("monthly", "monthly"),
        )
        if limits.get(key) is not None
    ]
    if limits.get("dailyPaymentCount") is not None:
        parts.append(f"{limits['dailyPaymentCount']} payments a day")
    return ", ".join(parts) or "none"


def _show(body: dict[str, Any]) -> None:
    print_fields(
        [
            ("id", body["id"]),
            ("name", body["name"]),
            ("status", body["status"]),
            ("customer", body["customerId"]),
            ("account", body["sourceAccountId"]),
            ("limits", _limits_shown(body["limits"])),
            ("over limit", body["overLimitAction"]),
            ("new payee", body.get("newPayeeAction", "ALLOW")),
            (
                "may pay",
                ", ".join(
                    f"{entry['type']} {entry['id']}" for entry in body["destinationAllowlist"]
                )
                or "nobody yet",
            ),
            ("created", moment_shown(body["createdAt"])),
        ]
    )


@app.command("create")
def agents_create(
    name: Annotated[str, typer.Option(metavar="NAME", help="A name to recognise it by.")],
    customer: Annotated[
        str, typer.Option(metavar="ID", help="The ACTIVE customer it pays for (cus_…).")
    ],
    account: Annotated[
        str, typer.Option(metavar="ID", help="The customer's balance account it pays from.")
    ],
    per_transfer: Annotated[
        str | None,
        typer.Option(metavar="DECIMAL", help="Limit per transfer, in the account's currency."),
    ] = None,
    daily: Annotated[
        str | None, typer.Option(metavar="DECIMAL", help="Limit per day (UTC).")
    ] = None,
    monthly: Annotated[
        str | None, typer.Option(metavar="DECIMAL", help="Limit per calendar month.")
    ] = None,
    over_limit: Annotated[
        str,
        typer.Option(
            metavar="ACTION",
            help="What a payment over a limit does: REJECT, or REQUEST_APPROVAL (parked for "
            "the owner).",
        ),
    ] = "REJECT",
    daily_payments: Annotated[
        int | None,
        typer.Option(metavar="N", min=1, help="At most N payments submitted per day (UTC)."),
    ] = None,
    new_payee: Annotated[
        str,
        typer.Option(
            metavar="ACTION",
            help="A payment to a payee it never paid: ALLOW, or REQUEST_APPROVAL (parked for "
            "the owner).",
        ),
    ] = "ALLOW",
    pay: Annotated[
        list[str] | None,
        typer.Option(
            "--pay",
            metavar="TYPE:ID",
            help="A payee it may pay, such as counterparty:cp_…; repeat for several.",
        ),
    ] = None,
    organization: Annotated[str | None, organization_option()] = None,
    as_json: JsonOption = False,
) -> None:
    """Create an agent for an ACTIVE customer; limits are decimals in the account's
    currency (25.50), as the assistant and MCP tools take them."""
    from corridor.accounts import service as accounts
    from corridor.agents import service
    from corridor.agents.rules import NewPayeeAction, OverLimitAction
    from corridor.agents.schemas import AgentCreate
    from corridor.tools.amounts import minor_units_of

    action = over_limit.strip().upper().replace("-", "_")
    if action not in {member.value for member in OverLimitAction}:
        usage_error(
            f"--over-limit: {over_limit!r} is not an action; use "
            + " or ".join(member.value for member in OverLimitAction)
        )
    payee_action = new_payee.strip().upper().replace("-", "_")
    if payee_action not in {member.value for member in NewPayeeAction}:
        usage_error(
            f"--new-payee: {new_payee!r} is not an action; use "
            + " or ".join(member.value for member in NewPayeeAction)
        )
    allowlist = []
    for entry in pay or []:
        kind, _, identifier = entry.partition(":")
        if not identifier:
            usage_error(f"--pay: {entry!r} is not TYPE:ID, such as counterparty:cp_…")
        allowlist.append({"type": kind.strip().lower(), "id": identifier.strip()})

    async def work(acting: Acting):
        source = await accounts.get_account(
            acting.session, caller=acting.caller, account_id=account
        )
        limits: dict[str, Any] = {"currency": source.currency}
        for key, option, text in (
            ("perTransfer", "--per-transfer", per_transfer),
            ("daily", "--daily", daily),
            ("monthly", "--monthly", monthly),
        ):
            if text is not None:
                limits[key] = str(minor_units_of(text.strip(), source.currency, field=option))
        if daily_payments is not None:
            limits["dailyPaymentCount"] = daily_payments
        data = AgentCreate.model_validate(
            {
                "customerId": customer,
                "sourceAccountId": account,
                "name": name,
                "limits": limits,
                "destinationAllowlist": allowlist,
                "overLimitAction": action,
                "newPayeeAction": payee_action,
            }
        )
        return agent_json(
            await service.create_agent(
                acting.session, caller=acting.caller, data=data, now=acting.now
            )
        )

    body = act(
        organization,
        work,
        write=True,
        options={
            "customerId": "--customer",
            "sourceAccountId": "--account",
            "name": "--name",
            "destinationAllowlist": "--pay",
        },
    )
    if as_json:
        print_json(body)
    else:
        _show(body)


@app.command("list")
def agents_list(
    customer: Annotated[
        str | None, typer.Option(metavar="ID", help="Only this customer's (cus_…).")
    ] = None,
    limit: Annotated[int, typer.Option(metavar="N", min=1, max=100, help="At most N.")] = 50,
    organization: Annotated[str | None, organization_option()] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print JSON lines, one agent per line.")
    ] = False,
) -> None:
    """List the organization's agents, newest first: id, name, status, customer, limits."""
    from corridor.agents import service
    from corridor.kit.pagination import PageRequest

    async def work(acting: Acting):
        page = await service.list_agents(
            acting.session,
            caller=acting.caller,
            customer_id=customer,
            page=PageRequest(limit=limit, cursor=None),
        )
        return [agent_json(agent) for agent in page.items]

    found = act(organization, work, write=False)
    print_listing(
        found,
        as_json=as_json,
        headers=["id", "name", "status", "customer", "limits"],
        row=lambda body: [
            body["id"],
            body["name"],
            body["status"],
            body["customerId"],
            _limits_shown(body["limits"]),
        ],
        optional=["customer"],
    )


@app.command("get")
def agents_get(
    agent_id: Annotated[str, typer.Argument(metavar="AGENT_ID", help="The agent's id (agt_…).")],
    organization: Annotated[str | None, organization_option()] = None,
    as_json: JsonOption = False,
) -> None:
    """Show an agent: its customer, account, limits and who it may pay."""
    from corridor.agents import service

    async def work(acting: Acting):
        return agent_json(
            await service.get_agent(acting.session, caller=acting.caller, agent_id=agent_id)
        )

    body = act(organization, work, write=False)
    if as_json:
        print_json(body)
    else:
        _show(body)
