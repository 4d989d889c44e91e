"""`corridor bank-files`: the files written for the bank and its answers."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from corridor.cli.base import typer_app
from corridor.cli.context import open_database, organization_option, resolve_organization, run
from corridor.cli.output import console, errors, progress_bar

app = typer_app(
    "Bank files: the NACHA files and ISO 20022 messages written for the bank, and its "
    "answers (docs/rails.md). The workers do all of this by themselves; these commands "
    "do it now, or by hand where no bank connection is set."
)


def _bank_file_line(file) -> str:
    window = file.window_cutoff_at.isoformat() if file.window_cutoff_at else "-"
    return (
        f"{file.id}  {file.direction:<8}  {file.format:<12}  {file.rail or '-':<12}  "
        f"{file.status:<8}  {file.entry_count:>6}  {window}  {file.name}"
    )


@app.command("list")
def bank_files_list(
    organization: Annotated[str | None, organization_option()] = None,
    direction: Annotated[
        str | None,
        typer.Option(metavar="DIRECTION", help="OUTGOING (for the bank) or INCOMING (from it)."),
    ] = None,
    limit: Annotated[int, typer.Option(metavar="N", min=1, max=250, help="At most N files.")] = 50,
) -> None:
    """List the organization's bank files, newest first: id, direction, format, rail,
    status, entries, window cutoff, name."""
    from corridor.auth.callers import Caller
    from corridor.bankfiles import service
    from corridor.kit.pagination import PageRequest

    async def main():
        database, _, _ = open_database()
        try:
            async with database.session(write=False) as session:
                organization_id = await resolve_organization(session, organization)
                page = await service.list_files(
                    session,
                    caller=Caller.operator(organization_id),
                    page=PageRequest(limit=limit, cursor=None),
                    direction=direction.upper() if direction else None,
                )
                return [_bank_file_line(file) for file in page.items]
        finally:
            await database.dispose()

    for line in run(main()):
        console.print(line, highlight=False, soft_wrap=True)


@app.command("write")
def bank_files_write(
    organization: Annotated[str | None, organization_option()] = None,
) -> None:
    """Write the files of every window whose cutoff has come (by the organization's
    clock): a NACHA file per ACH window, a pain.001.001.09 per SEPA or SWIFT window."""
    from corridor.bankfiles import writing
    from corridor.bankfiles.profile import profile_of

    database, settings, clock = open_database()

    async def main() -> int:
        try:
            async with database.session(write=False) as session:
                organization_id = await resolve_organization(session, organization)
            written = 0
            with progress_bar() as progress:
                task = progress.add_task("Writing bank files", total=None)
                while True:
                    done = await writing.write_due_files(
                        database,
                        clock,
                        profile=profile_of(settings),
                        organization_id=organization_id,
                    )
                    written += done
                    progress.advance(task, done)
                    if done == 0:
                        return written
        finally:
            await database.dispose()

    written = run(main())
    console.print(f"Wrote {written} bank file{'' if written == 1 else 's'}.", highlight=False)


@app.command("upload")
def bank_files_upload(
    organization: Annotated[str | None, organization_option()] = None,
    retry_failed: Annotated[
        bool,
        typer.Option(
            "--retry-failed",
            help="Also the files whose automatic retries ran out.",
        ),
    ] = False,
) -> None:
    """Upload the written files to the bank connection (CORRIDOR_BANK_SFTP_*), each once."""
    from corridor.bankfiles import transport
    from corridor.bankfiles.errors import BankConnectionMissing

    database, settings, clock = open_database()
    if settings.bank_sftp_host is None:
        errors.print(f"[red]{BankConnectionMissing().message}[/red]")
        raise typer.Exit(code=1)

    async def main() -> int:
        try:
            async with database.session() as session, session.begin():
                organization_id = await resolve_organization(session, organization)
                if retry_failed:
                    await transport.rearm_failed_uploads(
                        session, organization_id=organization_id, now=clock.now()
                    )
            uploaded = 0
            with progress_bar() as progress:
                task = progress.add_task("Uploading bank files", total=None)
                while True:
                    done = await transport.upload_due_files(
                        database, clock, settings=settings, organization_id=organization_id
                    )
                    uploaded += done
                    progress.advance(task, done)
                    if done == 0:
                        return uploaded
        finally:
            await database.dispose()

    uploaded = run(main())
    console.print(f"Uploaded {uploaded} bank file{'' if uploaded == 1 else 's'}.", highlight=False)


@app.command("import")
def bank_files_import(
    paths: Annotated[
        list[Path],
        typer.Argument(
            metavar="FILE...",
            exists=True,
            dir_okay=False,
            readable=True,
            help="Files the bank sent: NACHA returns/NOCs, pain.002, pacs.002, pacs.004, camt.054.",
        ),
    ],
    organization: Annotated[str | None, organization_option()] = None,
) -> None:
    """Read the bank's answers and apply them to the transfers (returns reverse or fail
    them, rejections fail them, NOCs are recorded). A file read before changes nothing."""
    from corridor.bankfiles import reading
    from corridor.bankfiles.errors import UnreadableBankFile
    from corridor.models import clock as sandbox_clocks

    database, _, clock = open_database()

    async def main() -> list[str]:
        lines = []
        try:
            async with database.session(write=False) as session:
                organization_id = await resolve_organization(session, organization)
            with progress_bar() as progress:
                task = progress.add_task("Reading bank files", total=len(paths))
                for path in paths:
                    text = path.read_text(encoding="utf-8", errors="replace")
                    try:
                        async with database.session() as session, session.begin():
                            now = (
                                await sandbox_clocks.moments(
                                    session, clock, organization_id=organization_id
                                )
                            ).of(organization_id)
                            file = await reading.import_file(
                                session,
                                organization_id=organization_id,
                                name=path.name,
                                content=text,
                                now=now,
                            )
                            summary = file.summary or {}
                            lines.append(
                                f"{path.name}: {file.id} {file.format}, applied "
                                f"{summary.get('applied', {})}, unmatched "
                                f"{len(summary.get('unmatched', []))}"
                            )
                    except UnreadableBankFile as error:
                        lines.append(f"{path.name}: not read: {error.message}")
                    progress.advance(task)
        finally:
            await database.dispose()
        return lines

    for line in run(main()):
        console.print(line, highlight=False, soft_wrap=True)
