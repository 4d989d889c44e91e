"""`make sdk` builds the Python SDK as a package a user installs: a wheel and an sdist,
the wheel installing into a fresh virtual environment and importing from there."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import tarfile
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The build sets up its own environment with the setuptools the SDK asks for.
build_timeout_s = 300


def test_make_sdk_builds_a_wheel_and_an_sdist_that_install_and_import(tmp_path):
    dist = tmp_path / "dist"
    built = subprocess.run(
        ["make", "--no-print-directory", "sdk", f"SDK_DIST={dist}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=build_timeout_s,
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (wheel,) = dist.glob("corridor_client-*-py3-none-any.whl")
    (sdist,) = dist.glob("corridor_client-*.tar.gz")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert "corridor_client/py.typed" in names and "corridor_client/models.py" in names
    assert any(name.startswith("corridor_client/_sync/") for name in names)
    with tarfile.open(sdist) as archive:
        assert any(name.endswith("/pyproject.toml") for name in archive.getnames())

    # A fresh environment holding the wheel alone; its dependencies (httpx, pydantic, …)
    # come from this environment's site-packages, so nothing is fetched.
    environment = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(environment)
    python = environment / "bin" / "python"
    installed = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet"),
            *("--no-deps", "--no-index", str(wheel)),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert installed.returncode == 0, installed.stderr
    fresh_site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (fresh_site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    imported = subprocess.run(
        [
            str(python),
            "-c",
            "import corridor_client\n"
            "from corridor_client import Corridor\n"
            "from corridor_client.models import BusinessCustomerCreate\n"
            "print(corridor_client.__file__)\n"
            "print(Corridor.__name__, BusinessCustomerCreate.__name__)",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert imported.returncode == 0, imported.stderr
    location, names_line = imported.stdout.splitlines()
    assert location.startswith(str(environment))  # the wheel's copy, not the checkout's
    assert names_line == "Corridor BusinessCustomerCreate"
