"""The `corridor` command, a module per command group: `base` is the root app and entry
point, `output` the shared printing (tables, JSON, errors), `context` the database and
organization a command acts on.

Commands show in `corridor --help` in the order they are registered here: the top-level
commands in the order of these imports (kept, not sorted), then the groups in the order of
`add_typer`."""

# isort: off
from corridor.cli import database  # noqa: F401  migrate, init
from corridor.cli import serve  # noqa: F401  serve, worker
from corridor.cli import listen, mcp  # noqa: F401
from corridor.cli import encryption  # noqa: F401  encrypt-secret, reencrypt-secrets
from corridor.cli import trigger  # noqa: F401
from corridor.cli import (
    agents,
    audit,
    bank_files,
    customers,
    keys,
    logs,
    orgs,
    receipts,
    transfers,
    users,
    webhooks,
)
from corridor.cli.base import app, main

# isort: on

app.add_typer(keys.app, name="keys")
app.add_typer(webhooks.app, name="webhooks")
app.add_typer(users.app, name="users")
app.add_typer(bank_files.app, name="bank-files")
app.add_typer(orgs.app, name="orgs")
app.add_typer(customers.app, name="customers")
app.add_typer(transfers.app, name="transfers")
app.add_typer(agents.app, name="agents")
app.add_typer(logs.app, name="logs")
app.add_typer(receipts.app, name="receipts")
app.add_typer(audit.app, name="audit")

__all__ = ["app", "main"]
