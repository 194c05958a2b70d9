from __future__ import annotations

import os
from pathlib import Path

import pytest

import mlcost
from mlcost.specs import Catalog, default_catalog

#: The folder holding the ``mlcost`` this test process imported: the checkout under test.
SOURCE = Path(mlcost.__file__).resolve().parents[1]


def under_test_env() -> dict[str, str]:
    """This process's environment with :data:`SOURCE` first on ``PYTHONPATH``, for the
    interpreters the tests start (``python -c``, notebook kernels): they import the package under
    test, whatever their working directory, not the ``mlcost`` their environment installed
    (another checkout's code, for a checkout tested with that checkout's environment). The
    bad-input suite's runtime-only interpreter is the exception: it tests the installed wheel."""
    paths = [str(SOURCE), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist (one worker per CPU, ``scripts/test.sh``) each worker's PyTorch runs on
    one thread, so the workers together use one thread per CPU instead of PyTorch's default of
    one per CPU each (on the 2-CPU CI machine the suite's time was the same either way, 107 s
    and 108 s; the setting keeps larger machines from oversubscribing)."""
    if "PYTEST_XDIST_WORKER" in os.environ:
        os.environ.setdefault("OMP_NUM_THREADS", "1")  # notebook kernels and subprocesses
        try:
            import torch
        except ImportError:
            return
        torch.set_num_threads(1)


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return default_catalog()
