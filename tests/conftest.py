from __future__ import annotations

import pytest

from mlcost.specs import Catalog, default_catalog


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return default_catalog()
