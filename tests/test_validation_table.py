"""The table of what each public function validates (``docs/validation-table.md``, issue 65) is
current: regenerated from the sources, it reads the same."""

from __future__ import annotations

import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_validation_table_is_current() -> None:
    script = runpy.run_path(str(ROOT / "scripts" / "validation_table.py"))
    table = script["table"]()
    assert (ROOT / "docs" / "validation-table.md").read_text() == table, (
        "docs/validation-table.md is out of date: run python scripts/validation_table.py"
    )


def test_the_table_lists_every_public_name_and_the_boundaries_check() -> None:
    import mlcost

    text = (ROOT / "docs" / "validation-table.md").read_text()
    for name in mlcost._LAZY:
        assert f"| `{name}` |" in text, name
    for name in ("Plan", "memory_breakdown", "collective_time", "search"):
        row = next(line for line in text.splitlines() if line.startswith(f"| `{name}` |"))
        assert "| - |" not in row, row
