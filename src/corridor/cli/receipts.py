"""`corridor receipts`: verify signed receipts of agent payments offline, rotate the
service's receipt signing key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from corridor.cli.base import typer_app
from corridor.cli.context import open_database, run
from corridor.cli.output import fail, print_json, usage_error

app = typer_app("Signed receipts of agent payments: verify them, rotate the signing key.")


def _read(source: str) -> str:
    if source == "-":
        import sys

        return sys.stdin.read()
    path = Path(source)
    if not path.is_file():
        usage_error(f"{source}: no such file")
    return path.read_text()


def _jwks_from(source: str) -> dict[str, Any]:
    """A JWKS from a file, or from a URL (the server's /.well-known/jwks.json)."""
    if source.startswith(("http://", "https://")):
        import httpx

        try:
            response = httpx.get(source, timeout=30, follow_redirects=True)
        except httpx.HTTPError as error:
            fail(f"--jwks {source}: {error}")
        if response.status_code != 200:
            fail(f"--jwks {source}: HTTP {response.status_code}")
        text = response.text
    else:
        text = _read(source)
    try:
        document = json.loads(text)
    except ValueError:
        usage_error(f"--jwks {source}: not JSON")
    if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
        usage_error(f'--jwks {source}: not a JWKS ({{"keys": [...]}})')
    return document


def _local_jwks() -> dict[str, Any]:
    from corridor.receipts import service

    async def main() -> dict[str, Any]:
        database, _, _ = open_database()
        try:
            async with database.session(write=False) as session:
                return await service.jwks(session)
        finally:
            await database.dispose()

    document: dict[str, Any] = run(main())
    return document


@app.command("verify")
def receipts_verify(
    file: Annotated[
        str,
        typer.Argument(
            metavar="FILE",
            help="A compact JWS, or the JSON of GET /v1/transfers/{id}/receipts ('-': stdin).",
        ),
    ],
    jwks: Annotated[
        str | None,
        typer.Option(
            "--jwks",
            metavar="FILE_OR_URL",
            help="The keys: a JWKS file or URL (…/.well-known/jwks.json). Default: the keys "
            "in the configured database.",
        ),
    ] = None,
) -> None:
    """Verify each receipt's signature and print its payload (one JSON line each); exit 1
    naming the first receipt that does not verify (bad signature, unknown kid)."""
    from corridor.receipts import service
    from corridor.receipts.errors import ReceiptInvalid

    text = _read(file)
    try:
        tokens = service.tokens_in(text)
    except (ValueError, TypeError, AttributeError):
        usage_error(f"{file}: neither a compact JWS nor the receipts JSON")
    if not tokens:
        usage_error(f"{file}: holds no receipt")
    keys = _jwks_from(jwks) if jwks is not None else _local_jwks()
    for index, token in enumerate(tokens):
        try:
            payload = service.verify(token, keys)
        except ReceiptInvalid as refused:
            where = f"receipt {index + 1} of {len(tokens)}" if len(tokens) > 1 else "the receipt"
            fail(f"{where} does not verify: {refused}")
        print_json(payload)


@app.command("rotate-key")
def receipts_rotate_key() -> None:
    """Make a new receipt signing key, which signs from now on; the old keys stay in
    /.well-known/jwks.json so the receipts they signed still verify."""
    from corridor.app import install_secret_box
    from corridor.config import get_settings
    from corridor.receipts import service

    install_secret_box(get_settings())  # private keys are encrypted at rest

    async def main() -> dict[str, Any]:
        database, _, clock = open_database()
        try:
            async with database.session() as session:
                key = await service.rotate_key(session, now=clock.now())
                shown = {"kid": key.kid, "alg": key.alg, "createdAt": key.created_at.isoformat()}
                await session.commit()
                return shown
        finally:
            await database.dispose()

    print_json(run(main()))
