"""The deployment guide's files stay true to the code: the Grafana dashboard draws every
metric family Corridor exports and no other; the systemd units and the Dockerfile run
commands that exist."""

from __future__ import annotations

import json
import re
from pathlib import Path

from prometheus_client import REGISTRY

from corridor.kit import metrics

ROOT = Path(__file__).resolve().parents[2]
SUFFIXES = ("_bucket", "_count", "_sum", "_total")


def _families() -> set[str]:
    """Every corridor_ family this process's registry holds (kit/metrics.py's)."""
    assert metrics.HTTP_REQUESTS is not None
    return {family.name for family in REGISTRY.collect() if family.name.startswith("corridor_")}


def _base(name: str) -> str:
    for suffix in SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def test_the_dashboard_draws_every_family_and_only_those():
    dashboard = json.loads((ROOT / "docs/grafana/corridor.json").read_text())
    expressions = [
        target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])
    ]
    drawn = {_base(name) for expr in expressions for name in re.findall(r"corridor_[a-z_]+", expr)}
    assert drawn <= _families() | {"corridor_build_info"}, drawn - _families()
    assert _families() - drawn <= {"corridor_build_info"}, _families() - drawn


def test_the_guide_names_every_family():
    guide = (ROOT / "docs/deployment.md").read_text()
    for family in _families():
        short = family.removeprefix("corridor_")
        assert short in guide or family in guide, family


def test_the_units_and_the_image_run_corridor_commands():
    units = {path.name: path.read_text() for path in (ROOT / "deploy/systemd").iterdir()}
    assert "corridor migrate" in units["corridor-migrate.service"]
    assert "corridor serve" in units["corridor-api.service"]
    assert "TimeoutStopSec=45" in units["corridor-api.service"]
    assert "corridor worker" in units["corridor-worker@.service"]
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert 'ENTRYPOINT ["corridor"]' in dockerfile
    assert "constraints.txt" in dockerfile
