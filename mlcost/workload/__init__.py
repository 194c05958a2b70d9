"""The workload layer: model + training configuration -> the operator table of one step.

>>> import mlcost
>>> from mlcost.workload import TrainingConfig, operators
>>> config = TrainingConfig(micro_batch_size=8, sequence_length=1024)
>>> table = operators(mlcost.model("gpt2"), config)
>>> table.to_frame()  # doctest: +SKIP
"""

from __future__ import annotations

from mlcost.errors import MlcostError
from mlcost.specs import ConvNetSpec, Spec, TransformerSpec
from mlcost.workload.attention import attention_matmul_flops, attention_pairs
from mlcost.workload.config import PRECISION_POLICIES, PrecisionPolicy, TrainingConfig
from mlcost.workload.convnet import convnet_operators
from mlcost.workload.table import ELEMENTWISE_FLOPS, Operator, OperatorTable
from mlcost.workload.transformer import transformer_operators


def operators(model: Spec, config: TrainingConfig | None = None) -> OperatorTable:
    """The operator table of one training step of ``model`` (a transformer or conv net)."""
    config = config or TrainingConfig()
    if isinstance(model, TransformerSpec):
        return transformer_operators(model, config)
    if isinstance(model, ConvNetSpec):
        return convnet_operators(model, config)
    raise MlcostError(f"model: {model.name!r} is a {model.KIND}, expected a transformer or convnet")


__all__ = [
    "ELEMENTWISE_FLOPS",
    "PRECISION_POLICIES",
    "Operator",
    "OperatorTable",
    "PrecisionPolicy",
    "TrainingConfig",
    "attention_matmul_flops",
    "attention_pairs",
    "convnet_operators",
    "operators",
    "transformer_operators",
]
