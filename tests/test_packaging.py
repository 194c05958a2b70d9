"""Every package directory is listed in pyproject.toml (the list is explicit, see there)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_is_listed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "mlcost").rglob("__init__.py")
    }
    assert found <= listed
    assert config["tool"]["setuptools"]["package-dir"]["mlcost._catalog"] == "specs"


def test_torch_is_pinned_to_the_cpu_build() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extras = config["project"]["optional-dependencies"]
    for extra in ("bench", "dev"):
        torch_pins = [d for d in extras[extra] if d.startswith("torch")]
        assert torch_pins == ["torch==2.13.0"], extra
