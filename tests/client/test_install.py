"""The SDK installed on its own, as a user installs it: a fresh virtual environment without
the server's packages, `pip install ./clients/python` with the project's constraints."""

from __future__ import annotations

import shutil
import subprocess
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# A fresh install resolves the SDK's dependencies from the package index: a few minutes at
# most on a slow machine.
install_timeout_s = 600


@pytest.fixture(scope="session")
def sdk_alone(tmp_path_factory) -> Path:
    """The python of a virtual environment holding the SDK and its dependencies alone."""
    where = tmp_path_factory.mktemp("sdk-alone")
    environment = where / "venv"
    # Installed from a copy: pip builds in the source folder (build/, *.egg-info), and the
    # checkout stays as it was.
    source = where / "clients-python"
    shutil.copytree(
        ROOT / "clients" / "python",
        source,
        ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"),
    )
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(environment)
    python = environment / "bin" / "python"
    installed = subprocess.run(
        [
            *(str(python), "-m", "pip", "install", "--quiet"),
            *("-c", str(ROOT / "constraints.txt"), str(source)),
        ],
        capture_output=True,
        text=True,
        timeout=install_timeout_s,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    return python


def test_the_sdk_installed_on_its_own_imports(sdk_alone):
    """models.py uses pydantic's EmailStr, which needs email-validator: the SDK used to
    install without it and fail on import."""
    imported = subprocess.run(
        [
            str(sdk_alone),
            "-c",
            "import corridor_client\n"
            "from corridor_client.models import BusinessCustomerCreate\n"
            "print(BusinessCustomerCreate.model_fields['email'].annotation)\n"
            "import importlib.util\n"
            "print(importlib.util.find_spec('corridor'))",
        ],
        capture_output=True,
        text=True,
    )
    assert imported.returncode == 0, imported.stderr
    annotation, server = imported.stdout.splitlines()
    assert "EmailStr" in annotation
    assert server == "None"  # the server's package stayed out of the SDK's environment
