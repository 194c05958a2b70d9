"""Spec schemas (pydantic), the catalog loader and the Hugging Face config importer."""

from mlcost.specs.base import Spec
from mlcost.specs.catalog import (
    GROUPS,
    Catalog,
    as_accelerator,
    as_model,
    default_catalog,
    default_catalog_dir,
    load_spec,
    load_spec_text,
)
from mlcost.specs.economics import Grid, Price
from mlcost.specs.formats import COMPUTE_FORMATS, NumericFormat
from mlcost.specs.hardware import (
    Accelerator,
    Attached,
    CloudPrice,
    Cluster,
    CollectiveFit,
    GemmPoint,
    Host,
    Link,
    Measured,
    Node,
    PeakThroughput,
    Storage,
    TraceOrigin,
)
from mlcost.specs.hf import from_hf_config
from mlcost.specs.kinds import SPEC_TYPES, spec_from_dict
from mlcost.specs.models import (
    ConvNetSpec,
    LatentAttention,
    MixtureOfExperts,
    ModelSpec,
    TransformerSpec,
)
from mlcost.specs.software import (
    CrossEntropyKernels,
    Engine,
    Implementation,
    Kernel,
    KernelCurve,
    MoeSaving,
)

__all__ = [
    "COMPUTE_FORMATS",
    "GROUPS",
    "SPEC_TYPES",
    "Accelerator",
    "Attached",
    "Catalog",
    "CloudPrice",
    "Cluster",
    "CollectiveFit",
    "ConvNetSpec",
    "CrossEntropyKernels",
    "Engine",
    "GemmPoint",
    "Grid",
    "Host",
    "Implementation",
    "Kernel",
    "KernelCurve",
    "LatentAttention",
    "Link",
    "Measured",
    "MixtureOfExperts",
    "ModelSpec",
    "MoeSaving",
    "Node",
    "NumericFormat",
    "PeakThroughput",
    "Price",
    "Spec",
    "Storage",
    "TraceOrigin",
    "TransformerSpec",
    "as_accelerator",
    "as_model",
    "default_catalog",
    "default_catalog_dir",
    "from_hf_config",
    "load_spec",
    "load_spec_text",
    "spec_from_dict",
]
