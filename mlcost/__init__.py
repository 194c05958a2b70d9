"""mlcost: what a training run costs in FLOPs, memory, time, dollars and CO2, before you rent a GPU.

Quick start::

    >>> import mlcost
    >>> gpu = mlcost.accelerator("h100-sxm5-80gb")
    >>> round(gpu.ridge_point("bf16").magnitude)
    295
    >>> mlcost.model("llama-2-7b").parameter_count
    6738415616

One entry per question (each also importable from its module):

* the catalog: :func:`accelerator`, :func:`model`, :func:`catalog`, :func:`load_spec`,
  :func:`from_hf_config`, :func:`describe`;
* one step: :func:`operators`, :func:`training_flops`, :func:`memory_breakdown`,
  :func:`step_time`;
* many GPUs: :class:`Layout`, :func:`system`, :func:`multi_gpu_step_time`, :func:`search`,
  :func:`collective_time`;
* a whole run: :class:`Plan`.

The heavier modules are imported when first used, so ``import mlcost`` stays quick.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mlcost.comms import collective_time
    from mlcost.description import SpecDescription, describe
    from mlcost.errors import (
        AmbiguousNameError,
        MlcostError,
        SpecError,
        UnitError,
        UnknownNameError,
    )
    from mlcost.finetune import FineTuning
    from mlcost.flops import training_flops
    from mlcost.layout import Layout
    from mlcost.memory import memory_breakdown
    from mlcost.parallel import multi_gpu_step_time
    from mlcost.parallel.search import search
    from mlcost.plan import Plan
    from mlcost.plan.fit import finetuning_fit
    from mlcost.serving import ServePlan
    from mlcost.specs import (
        Accelerator,
        Catalog,
        ConvNetSpec,
        TransformerSpec,
        from_hf_config,
        load_spec,
    )
    from mlcost.systems import System, system
    from mlcost.timing import step_time
    from mlcost.trace import read_trace
    from mlcost.trace_fit import calibrate_from_trace, compare_trace
    from mlcost.units import Q_, ureg
    from mlcost.workload import TrainingConfig, operators

    __version__: str


def _version() -> str:
    """The installed package's version (``importlib.metadata``, imported only when asked:
    about 0.02 s that no other command needs)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mlcost")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0.0.0+unknown"


#: Public names imported on first use: name -> module (none shares its name with a module of
#: the package, whose import would otherwise replace it).
#: Every public name and the module that defines it, imported on first use (PEP 562), so that
#: ``import mlcost`` (and ``mlcost --version``) loads neither pint nor pandas until needed.
_LAZY = {
    "SpecDescription": "mlcost.description",
    "describe": "mlcost.description",
    "AmbiguousNameError": "mlcost.errors",
    "MlcostError": "mlcost.errors",
    "SpecError": "mlcost.errors",
    "UnitError": "mlcost.errors",
    "UnknownNameError": "mlcost.errors",
    "Layout": "mlcost.layout",
    "Accelerator": "mlcost.specs",
    "Catalog": "mlcost.specs",
    "ConvNetSpec": "mlcost.specs",
    "TransformerSpec": "mlcost.specs",
    "from_hf_config": "mlcost.specs",
    "load_spec": "mlcost.specs",
    "System": "mlcost.systems",
    "system": "mlcost.systems",
    "Q_": "mlcost.units",
    "ureg": "mlcost.units",
    "TrainingConfig": "mlcost.workload",
    "operators": "mlcost.workload",
    "Plan": "mlcost.plan",
    "ServePlan": "mlcost.serving",
    "collective_time": "mlcost.comms",
    "memory_breakdown": "mlcost.memory",
    "multi_gpu_step_time": "mlcost.parallel",
    "search": "mlcost.parallel",
    "step_time": "mlcost.timing",
    "training_flops": "mlcost.flops",
    "FineTuning": "mlcost.finetune",
    "finetuning_fit": "mlcost.plan.fit",
    "read_trace": "mlcost.trace",
    "calibrate_from_trace": "mlcost.trace_fit",
    "compare_trace": "mlcost.trace_fit",
}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        return _version()
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    if not name.startswith("_") and importlib.util.find_spec(f"mlcost.{name}") is not None:
        return importlib.import_module(f"mlcost.{name}")  # a submodule, e.g. mlcost.plot
    raise AttributeError(f"module 'mlcost' has no attribute {name!r}")


def accelerator(name: str) -> Accelerator:
    """An accelerator from the built-in catalog, by name or alias (or a spec/profile path)."""
    from mlcost.specs import as_accelerator

    return as_accelerator(name)


def model(name: str) -> TransformerSpec | ConvNetSpec:
    """A model from the built-in catalog, by name or alias (or a spec/config.json path)."""
    from mlcost.specs import as_model

    return as_model(name)


def catalog() -> Catalog:
    """The built-in catalog."""
    from mlcost.specs import default_catalog

    return default_catalog()


__all__ = [
    "Q_",
    "AmbiguousNameError",
    "Catalog",
    "FineTuning",
    "Layout",
    "MlcostError",
    "Plan",
    "ServePlan",
    "SpecDescription",
    "SpecError",
    "System",
    "TrainingConfig",
    "UnitError",
    "UnknownNameError",
    "__version__",
    "accelerator",
    "calibrate_from_trace",
    "catalog",
    "collective_time",
    "compare_trace",
    "describe",
    "finetuning_fit",
    "from_hf_config",
    "load_spec",
    "memory_breakdown",
    "model",
    "multi_gpu_step_time",
    "operators",
    "read_trace",
    "search",
    "step_time",
    "system",
    "training_flops",
    "ureg",
]
