"""The README's Python examples run, in order, in one namespace: docs move with the code."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_the_readme_has_python_examples() -> None:
    assert len(BLOCKS) >= 8


def test_the_readme_python_examples_run() -> None:
    namespace: dict[str, object] = {}
    for number, block in enumerate(BLOCKS, start=1):
        code = compile(block, f"README.md python block {number}", "exec")
        exec(code, namespace)
