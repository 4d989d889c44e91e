"""The bank connection over SFTP, against a real SFTP server (asyncssh) on 127.0.0.1 that
plays the bank: files uploaded once, a dropped connection mid-upload retried without a
second file, a crash between the upload and its record healed without writing again, and
the inbox read once and archived."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import asyncssh
import pytest
from pydantic import SecretStr

from corridor.bankfiles import bank, transport
from corridor.rails.base import RailName
from corridor.rails.files import BankProfile
from tests.bankfiles.conftest import PROFILE, write_files
from tests.bankfiles.test_ach_files import advance_to, content, files, payee, payout
from tests.transfers.conftest import create, fetch, make_customer, settle

MORNING = datetime(2026, 11, 18, 14, 0, tzinfo=UTC)
UPLOADING = BankProfile(**{**PROFILE.__dict__, "upload_required": True})


class Bank:
    """The SFTP server's state the tests look at: its root folder and what it was sent."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.writes = 0
        self.drop_next_write = False


def sftp_factory(the_bank: Bank):
    class BankSFTP(asyncssh.SFTPServer):
        def __init__(self, channel: asyncssh.SSHServerChannel) -> None:
            self._connection = channel.get_connection()
            super().__init__(channel, chroot=str(the_bank.root).encode())

        def write(self, file_object, offset, data):
            if the_bank.drop_next_write:  # the line drops in the middle of the upload
                the_bank.drop_next_write = False
                self._connection.abort()
                raise asyncssh.SFTPConnectionLost("dropped")
            the_bank.writes += 1
            return super().write(file_object, offset, data)

    return BankSFTP


@contextlib.asynccontextmanager
async def sftp_bank(tmp_path: Path) -> AsyncIterator[tuple[Bank, dict]]:
    host_key = asyncssh.generate_private_key("ssh-ed25519")
    client_key = asyncssh.generate_private_key("ssh-ed25519")
    the_bank = Bank(tmp_path / "bank")
    the_bank.root.mkdir()
    server = await asyncssh.listen(
        "127.0.0.1",
        0,
        server_host_keys=[host_key],
        authorized_client_keys=asyncssh.import_authorized_keys(
            client_key.export_public_key().decode()
        ),
        sftp_factory=sftp_factory(the_bank),
        allow_scp=False,
    )
    port = server.sockets[0].getsockname()[1]
    settings = {
        "bank_file_rails": "ACH_SAME_DAY",
        "bank_sftp_host": "127.0.0.1",
        "bank_sftp_port": port,
        "bank_sftp_user": "corridor",
        "bank_sftp_key": client_key.export_private_key().decode(),
        "bank_sftp_host_key": f"[127.0.0.1]:{port} {host_key.export_public_key().decode().strip()}",
    }
    try:
        yield the_bank, settings
    finally:
        server.close()
        await server.wait_closed()


@pytest.fixture
async def sftp(tmp_path):
    async with sftp_bank(tmp_path) as found:
        yield found


def settings_with(app, overrides: dict):
    secret = SecretStr(overrides["bank_sftp_key"])
    return app.state.settings.model_copy(update=overrides | {"bank_sftp_key": secret})


async def upload(app, settings, organization_id: str) -> int:
    return await transport.upload_due_files(
        app.state.database, app.state.clock, settings=settings, organization_id=organization_id
    )


async def written_file(app, tenant, clock, file_rails, value: int = 10_000):
    clock.set(MORNING)
    file_rails(RailName.ACH_SAME_DAY, profile=UPLOADING)
    customer = await make_customer(tenant.client, ("USD",))
    await customer.fund("USD", 100_000)
    person = await payee(tenant.client, customer.id, "INDIVIDUAL", "111122223333")
    transfer = await create(tenant.client, payout(customer, person, value))
    await settle(app, tenant.organization_id)
    await advance_to(tenant.client, "2026-11-18T15:31:00Z")
    assert await write_files(app, tenant.organization_id, UPLOADING) == 1
    (file,) = await files(tenant.client)
    return customer, transfer, file


async def test_a_written_file_is_uploaded_once_and_settles_only_after(
    app, tenant, clock, file_rails, sftp
):
    the_bank, overrides = sftp
    settings = settings_with(app, overrides)
    _, transfer, file = await written_file(app, tenant, clock, file_rails)
    assert file["status"] == "WRITTEN"
    await advance_to(tenant.client, "2026-11-18T18:30:00Z")  # past settlement
    await settle(app, tenant.organization_id)
    assert (await fetch(tenant.client, transfer["id"]))["status"] == "PROCESSING"  # not sent

    assert await upload(app, settings, tenant.organization_id) == 1
    assert await upload(app, settings, tenant.organization_id) == 0
    landed = the_bank.root / "outbox" / tenant.organization_id / file["name"]
    assert landed.read_text() == await content(tenant.client, file["id"])
    assert [path.name for path in landed.parent.iterdir()] == [file["name"]]
    (file,) = await files(tenant.client)
    assert file["status"] == "UPLOADED" and file["uploadedAt"] is not None
    await advance_to(tenant.client, "2026-11-18T18:31:00Z")  # the leg's next poll
    await settle(app, tenant.organization_id)
    assert (await fetch(tenant.client, transfer["id"]))["status"] == "COMPLETED"


async def test_a_dropped_connection_mid_upload_is_retried_without_a_second_file(
    app, tenant, clock, file_rails, sftp
):
    the_bank, overrides = sftp
    settings = settings_with(app, overrides)
    _, _, file = await written_file(app, tenant, clock, file_rails)
    the_bank.drop_next_write = True
    assert await upload(app, settings, tenant.organization_id) == 0
    (failed,) = await files(tenant.client)
    assert failed["status"] == "WRITTEN" and failed["uploadAttempts"] == 1
    assert failed["lastError"]
    folder = the_bank.root / "outbox" / tenant.organization_id
    assert not (folder / file["name"]).exists()  # the bank never sees half a file
    assert await upload(app, settings, tenant.organization_id) == 0  # waits for its retry time
    await advance_to(tenant.client, "2026-11-18T15:33:00Z")
    assert await upload(app, settings, tenant.organization_id) == 1
    finished = [path.name for path in folder.iterdir() if not path.name.endswith(".part")]
    assert finished == [file["name"]]
    assert (folder / file["name"]).read_text() == await content(tenant.client, file["id"])


async def test_a_restart_between_the_upload_and_its_record_does_not_send_twice(
    app, tenant, clock, file_rails, sftp
):
    the_bank, overrides = sftp
    settings = settings_with(app, overrides)
    _, _, file = await written_file(app, tenant, clock, file_rails)
    # The previous process renamed the file into place and died before recording it.
    folder = the_bank.root / "outbox" / tenant.organization_id
    folder.mkdir(parents=True)
    (folder / file["name"]).write_text(await content(tenant.client, file["id"]))
    assert await upload(app, settings, tenant.organization_id) == 1
    assert the_bank.writes == 0  # recorded, not written again
    (recorded,) = await files(tenant.client)
    assert recorded["status"] == "UPLOADED"


async def test_the_inbox_is_read_once_and_archived(app, tenant, clock, file_rails, sftp):
    the_bank, overrides = sftp
    settings = settings_with(app, overrides)
    customer, transfer, file = await written_file(app, tenant, clock, file_rails)
    assert await upload(app, settings, tenant.organization_id) == 1
    await advance_to(tenant.client, "2026-11-18T18:30:00Z")
    await settle(app, tenant.organization_id)
    transfer = await fetch(tenant.client, transfer["id"])
    assert transfer["status"] == "COMPLETED"
    returns = bank.nacha_answers(
        await content(tenant.client, file["id"]),
        [bank.NachaAnswer(transfer["achTraceNumber"], "R01")],
        now=MORNING,
    )
    inbox = the_bank.root / "inbox" / tenant.organization_id
    inbox.mkdir(parents=True)
    (inbox / "RET20261119.ach").write_text(returns)
    (inbox / "RET20261119-copy.ach").write_text(returns)  # the bank sent it twice
    (inbox / "junk.txt").write_text("not a bank file")

    read = await transport.poll_inbox(app.state.database, app.state.clock, settings=settings)
    assert read == 3
    assert sorted(path.name for path in inbox.iterdir()) == []
    archived = the_bank.root / "archive" / tenant.organization_id
    assert sorted(path.name for path in archived.iterdir()) == [
        "RET20261119-copy.ach",
        "RET20261119.ach",
        "junk.txt",
    ]
    assert (await fetch(tenant.client, transfer["id"]))["status"] == "REVERSED"
    assert (await customer.balance("USD"))["available"] == 100_000
    incoming = await files(tenant.client, direction="INCOMING")
    assert sorted(found["status"] for found in incoming) == ["APPLIED", "FAILED"]
    assert await transport.poll_inbox(app.state.database, app.state.clock, settings=settings) == 0
