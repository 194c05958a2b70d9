"""The table of what each public function validates (``docs/validation-table.md``, issue 65)
lists every public function: regenerated from the sources, it has the same rows."""

from __future__ import annotations

import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _names(text: str) -> set[tuple[str, str]]:
    """(module, name) of every row of the table."""
    found, module = set(), ""
    for line in text.splitlines():
        if line.startswith("## `"):
            module = line[4:-1]
        elif line.startswith("| `"):
            found.add((module, line.split("`")[1]))
    return found


def test_the_validation_table_lists_every_public_function() -> None:
    """Every public function and class, and no other, has its row (the words of a row follow
    the code and are rewritten by ``python scripts/validation_table.py``; a row missing or left
    over fails here)."""
    script = runpy.run_path(str(ROOT / "scripts" / "validation_table.py"))
    current = _names(script["table"]())
    written = _names((ROOT / "docs" / "validation-table.md").read_text())
    assert written == current, (
        f"docs/validation-table.md: missing {sorted(current - written)[:10]}, left over "
        f"{sorted(written - current)[:10]}; run python scripts/validation_table.py"
    )


def test_the_table_lists_every_public_name_and_the_boundaries_check() -> None:
    import mlcost

    text = (ROOT / "docs" / "validation-table.md").read_text()
    for name in mlcost._LAZY:
        assert f"| `{name}` |" in text, name
    for name in ("Plan", "memory_breakdown", "collective_time", "search"):
        row = next(line for line in text.splitlines() if line.startswith(f"| `{name}` |"))
        assert "| - |" not in row, row
