from __future__ import annotations

import os

import pytest

from mlcost.specs import Catalog, default_catalog


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
