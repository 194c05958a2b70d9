from __future__ import annotations

import os

import pytest

from mlcost.specs import Catalog, default_catalog


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist (one worker per CPU, ``scripts/test.sh``) each worker's PyTorch runs on
    one thread: with PyTorch's default of one thread per CPU in every worker, the workers'
    OpenMP threads contend for the same CPUs and the torch-heavy files (the CPU calibration,
    the saved-tensor and FLOP-counter oracles) take about twice as long."""
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
