"""mlcost: what a training run costs in FLOPs, memory, time, dollars and CO2, before you rent a GPU.

Quick start::

    >>> import mlcost
    >>> gpu = mlcost.accelerator("h100-sxm5-80gb")
    >>> round(gpu.ridge_point("bf16").magnitude)
    295
    >>> mlcost.model("llama-2-7b").parameter_count
    6738415616
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from mlcost.describe import SpecDescription, describe
from mlcost.errors import (
    AmbiguousNameError,
    MlcostError,
    SpecError,
    UnitError,
    UnknownNameError,
)
from mlcost.flops import training_flops
from mlcost.plan import Plan
from mlcost.specs import (
    Accelerator,
    Catalog,
    ConvNetSpec,
    TransformerSpec,
    default_catalog,
    from_hf_config,
    load_spec,
)
from mlcost.units import Q_, ureg
from mlcost.workload import TrainingConfig, operators

try:
    __version__ = version("mlcost")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"


def accelerator(name: str) -> Accelerator:
    """An accelerator from the built-in catalog, by name or alias."""
    return default_catalog().accelerator(name)


def model(name: str) -> TransformerSpec | ConvNetSpec:
    """A model from the built-in catalog, by name or alias."""
    return default_catalog().model(name)


def catalog() -> Catalog:
    """The built-in catalog."""
    return default_catalog()


__all__ = [
    "Q_",
    "AmbiguousNameError",
    "Catalog",
    "MlcostError",
    "Plan",
    "SpecDescription",
    "SpecError",
    "TrainingConfig",
    "UnitError",
    "UnknownNameError",
    "__version__",
    "accelerator",
    "catalog",
    "describe",
    "from_hf_config",
    "load_spec",
    "model",
    "operators",
    "training_flops",
    "ureg",
]
