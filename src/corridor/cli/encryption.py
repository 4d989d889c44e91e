"""`corridor encrypt-secret` and `corridor reencrypt-secrets`: secrets under the server key."""

from __future__ import annotations

import sys

import typer

from corridor.cli.base import app
from corridor.cli.context import open_database, run
from corridor.cli.output import console, errors, progress_bar
from corridor.config import get_settings

reencrypt_batch_endpoints = 200


@app.command("encrypt-secret")
def encrypt_secret() -> None:
    """Encrypt a secret read from standard input with the server key and print it.

    For the settings that hold a secret encrypted (CORRIDOR_EVM_SIGNER_KEY, the hot
    wallet's private key; CORRIDOR_EVM_DEPOSIT_MNEMONIC, the deposit seed phrase): read
    from stdin, never from the command line, so it stays out of shell history."""
    from corridor.app import install_secret_box
    from corridor.kit import secretbox

    settings = get_settings()
    install_secret_box(settings)
    secret = sys.stdin.read().strip()
    if not secret:
        errors.print("Error: nothing to encrypt: pipe the secret to standard input")
        raise typer.Exit(code=1)
    console.print(secretbox.current().encrypt(secret), soft_wrap=True, highlight=False)


@app.command("reencrypt-secrets")
def reencrypt_secrets() -> None:
    """Encrypt every stored webhook signing secret again under CORRIDOR_SECRET_KEY.

    Rotating the server key: set the new key in CORRIDOR_SECRET_KEY, list the old one in
    CORRIDOR_SECRET_KEYS_RETIRED, run this command, then drop the retired key."""
    from corridor.app import install_secret_box
    from corridor.kit.secretbox import SecretBoxError
    from corridor.webhooks import repository

    settings = get_settings()

    async def main() -> int:
        database, _, _ = open_database()
        done, last_id = 0, None
        try:
            async with database.session(write=False) as session:
                total = await repository.count_all_endpoints(session)
            with progress_bar() as progress:
                task = progress.add_task("Encrypting secrets", total=total)
                # Batches of one transaction each: the retired keys still read what is
                # not done yet, so stopping halfway loses nothing.
                while True:
                    async with database.session() as session, session.begin():
                        ids = await repository.reencrypt_secrets(
                            session, after_id=last_id, endpoints_max=reencrypt_batch_endpoints
                        )
                    if not ids:
                        return done
                    done, last_id = done + len(ids), ids[-1]
                    progress.advance(task, len(ids))
        finally:
            await database.dispose()

    try:
        install_secret_box(settings)
        count = run(main())
    except SecretBoxError as error:
        errors.print(f"[red]{error}[/red]")
        raise typer.Exit(code=1) from None
    console.print(
        f"Encrypted the signing secrets of {count} webhook endpoint(s) under the current key"
    )
