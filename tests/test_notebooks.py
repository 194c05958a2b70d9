"""Every notebook under notebooks/ runs top to bottom without an error, and one that draws
shows its figures (an ``image/png`` output, not a figure left in a non-interactive backend).

The notebooks run one after the other in one kernel (starting a kernel and importing mlcost,
pandas and matplotlib into it takes about 2 s of the ~3 s a notebook takes). Before each one a
first cell empties the kernel the way a fresh one starts: ``%reset -f`` (no name of the previous
notebook is left), matplotlib's defaults, the inline backend and no open figure, the notebook's
folder as the working directory; the test checks that the namespace is empty after it.

The kernel imports the ``mlcost`` under test: the package this test process imported, whose
folder goes first on the kernel's ``PYTHONPATH`` (:func:`tests.conftest.under_test_env`).
Otherwise a kernel started in the notebooks' folder finds whatever ``mlcost`` its environment
has installed, which, for a checkout tested with another checkout's environment, is that other
checkout's code. The first cell prints the file the kernel imported, and the test compares it
with this process's.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from jupyter_core.utils import run_sync
from nbclient import NotebookClient

import mlcost
from tests.conftest import under_test_env

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
FOLDER = NOTEBOOKS[0].parent if NOTEBOOKS else Path()
#: Run before each notebook: a kernel as it starts, whatever the previous notebook left.
FRESH = f"""\
%reset -f
import os as _os, matplotlib as _mpl
_os.chdir({str(FOLDER)!r})
_mpl.rcdefaults()
%matplotlib inline
import matplotlib.pyplot as _plt
_plt.close("all")
del _os, _mpl, _plt
_kernel = {{"In", "Out", "exit", "quit", "get_ipython", "open"}}
print(sorted(k for k in globals() if not k.startswith("_") and k not in _kernel))
import mlcost as _mlcost
print(_mlcost.__file__)
del _mlcost
"""


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS


@pytest.fixture(scope="module")
def kernel() -> Iterator[Any]:
    """One kernel manager for the module's notebooks; its kernel is started by the first."""
    manager = NotebookClient(nbformat.v4.new_notebook(), kernel_name="python3")
    km = manager.create_kernel_manager()
    yield km
    if km.has_kernel:
        run_sync(km.shutdown_kernel)(now=True)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(kernel: Any, path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(FRESH))
    NotebookClient(
        notebook,
        km=kernel,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    ).execute(env=under_test_env())  # used where this notebook starts the module's kernel
    fresh, *cells = notebook.cells
    printed = "".join(o.get("text", "") for o in fresh.outputs).splitlines()
    assert len(printed) == 2 and printed[0] == "[]", fresh.outputs  # an empty namespace
    assert Path(printed[1]).resolve() == Path(mlcost.__file__).resolve(), printed  # under test
    errors = [
        output
        for cell in cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    assert not errors
    draws = any(
        cell.cell_type == "code" and ("plot." in cell.source or "plt." in cell.source)
        for cell in cells
    )
    images = sum(
        "image/png" in output.get("data", {})
        for cell in cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
    )
    if draws:
        assert images >= 1, f"{path.name} draws but shows no figure"
