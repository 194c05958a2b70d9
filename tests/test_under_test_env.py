"""The interpreters the tests start import the checkout under test (:func:`tests.conftest.
under_test_env`), even where another ``mlcost`` comes first on the caller's ``PYTHONPATH`` and
the working directory holds none."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import mlcost
from tests.conftest import under_test_env


def test_a_started_interpreter_imports_the_package_under_test(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    decoy = tmp_path / "decoy"
    (decoy / "mlcost").mkdir(parents=True)
    (decoy / "mlcost" / "__init__.py").write_text("")  # another mlcost, first on PYTHONPATH
    monkeypatch.setenv("PYTHONPATH", str(decoy))
    code = "import mlcost; print(mlcost.__file__)"
    started = [sys.executable, "-c", code]
    plain = subprocess.run(started, capture_output=True, text=True, check=True, cwd=tmp_path)
    assert Path(plain.stdout.strip()).parent == decoy / "mlcost"  # the decoy, without the helper
    done = subprocess.run(
        started, capture_output=True, text=True, check=True, cwd=tmp_path, env=under_test_env()
    )
    assert Path(done.stdout.strip()).resolve() == Path(mlcost.__file__).resolve()
