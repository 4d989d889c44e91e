"""`corridor bank-files`, run as an operator runs it: a subprocess on its own database."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from corridor.bankfiles import bank
from tests.bankfiles.test_nacha_format import sample
from tests.test_cli import corridor, environment  # noqa: F401


def test_bank_files_commands_write_list_and_import(environment, tmp_path):  # noqa: F811
    corridor(environment, "migrate")
    corridor(environment, "init", "--json")
    listed = corridor(environment, "bank-files", "list")
    assert listed.stdout == ""
    assert "Wrote 0 bank files." in corridor(environment, "bank-files", "write").stdout

    answers = tmp_path / "RET20261119.ach"
    answers.write_text(
        bank.nacha_answers(
            sample(1),
            [bank.NachaAnswer("123456780000000", "R01")],
            now=datetime(2026, 11, 19, tzinfo=UTC),
        )
    )
    junk = tmp_path / "junk.txt"
    junk.write_text("hello")
    imported = corridor(environment, "bank-files", "import", str(answers), str(junk)).stdout
    assert "RET20261119.ach: bkf_" in imported and "NACHA_RETURN" in imported
    assert "unmatched 1" in imported  # no transfer of this organization has that trace
    assert "junk.txt: not read" in imported
    again = corridor(environment, "bank-files", "import", str(answers)).stdout
    assert again.split(":")[1].split()[0] == imported.split(":")[1].split()[0]  # the same file

    (line,) = corridor(environment, "bank-files", "list").stdout.splitlines()
    assert "INCOMING" in line and "NACHA_RETURN" in line and "APPLIED" in line


def test_upload_without_a_bank_connection_says_what_to_set(environment):  # noqa: F811
    corridor(environment, "migrate")
    json.loads(corridor(environment, "init", "--json").stdout)
    failed = corridor(environment, "bank-files", "upload", check=False)
    assert failed.returncode == 1
    assert "CORRIDOR_BANK_SFTP_HOST" in failed.stderr
