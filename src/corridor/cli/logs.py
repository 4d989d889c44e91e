"""`corridor logs`: the request log (the API requests of the organization's keys)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Annotated, Any

import typer

from corridor.cli.base import typer_app
from corridor.cli.context import open_database, organization_option, resolve_organization, run
from corridor.cli.output import print_json, usage_error

app = typer_app("The request log: the API requests of the organization's keys.")


@app.command("tail")
def logs_tail(
    key: Annotated[
        str | None,
        typer.Option("--key", "-k", metavar="KEY_ID", help="Only this key's requests (key_…)."),
    ] = None,
    status: Annotated[
        str | None,
        typer.Option("--status", metavar="STATUS", help="A status (404) or a class (4xx, 5xx)."),
    ] = None,
    interval: Annotated[
        float, typer.Option("--interval", min=0.2, max=60, help="Seconds between two looks.")
    ] = 1.0,
    organization: Annotated[str | None, organization_option()] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print JSON lines, one request per line.")
    ] = False,
) -> None:
    """Print the API requests of the organization's keys as they arrive (the request log,
    as GET /v1/request-logs), the last 10 first; Ctrl-C ends."""
    from corridor.auth.callers import Caller
    from corridor.requestlogs import rules, service

    statuses = rules.status_range(status) if status is not None else None
    if status is not None and statuses is None:
        usage_error(f"--status {status!r}: a status (404) or a class of them (4xx)")
    filters = rules.RequestLogFilters(credential_id=key, status=statuses)

    async def main() -> None:
        database, _, _ = open_database()
        try:
            async with database.session(write=False) as session:
                organization_id = await resolve_organization(session, organization)
            caller = Caller.operator(organization_id)
            last: str | None = None
            while True:
                async with database.session(write=False) as session:
                    found = await service.request_logs_after(
                        session, caller=caller, filters=filters, after_id=last
                    )
                for log in found:
                    _print_request_log(log, as_json=as_json)
                    last = log.id
                await asyncio.sleep(interval)
        finally:
            await database.dispose()

    with contextlib.suppress(KeyboardInterrupt):
        run(main())


def _print_request_log(log: Any, *, as_json: bool) -> None:
    if as_json:
        print_json(
            {
                "id": log.id,
                "createdAt": log.created_at.isoformat(),
                "credentialId": log.credential_id,
                "method": log.method,
                "path": log.path,
                "status": log.status,
                "latencyMs": log.latency_ms,
                "idempotencyKey": log.idempotency_key,
                "errorBody": log.error_body,
            }
        )
        return
    line = (
        f"{log.created_at:%Y-%m-%d %H:%M:%S} {log.status} {log.method} {log.path} "
        f"{log.latency_ms:.0f} ms {log.credential_id} {log.id}"
    )
    if log.idempotency_key:
        line += f" idempotency-key={log.idempotency_key}"
    if log.error_body:
        line += f"\n    {log.error_code or 'error'}: {log.error_body.get('message', '')}"
    typer.echo(line)
