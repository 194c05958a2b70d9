"""The workload layer: model + training configuration + layout -> the operator table of one step.

>>> import mlcost
>>> from mlcost.workload import TrainingConfig, operators
>>> table = operators(mlcost.model("gpt2"), TrainingConfig(sequence_length=1024),
...                   mlcost.Layout(micro_batch_size=8))
>>> table.to_frame()  # doctest: +SKIP
"""

from __future__ import annotations

from mlcost.arrays import Real
from mlcost.checks import argument
from mlcost.errors import MlcostError
from mlcost.layout import Layout
from mlcost.specs import ConvNetSpec, Implementation, Spec, TransformerSpec
from mlcost.workload.attention import attention_matmul_flops, attention_pairs
from mlcost.workload.config import (
    PRECISION_POLICIES,
    PrecisionPolicy,
    TrainingConfig,
    config_for_model,
)
from mlcost.workload.convnet import convnet_operators
from mlcost.workload.optimizer import OPTIMIZERS, OptimizerProfile
from mlcost.workload.table import (
    ELEMENTWISE_FLOPS,
    Operator,
    OperatorKind,
    OperatorRole,
    OperatorTable,
)
from mlcost.workload.transformer import transformer_operators


def operators(
    model: Spec,
    config: TrainingConfig | None = None,
    layout: Layout | None = None,
    *,
    micro_batch_size: Real | None = None,
    sequence_length: Real | None = None,
    implementation: Implementation | None = None,
) -> OperatorTable:
    """The operator table of one training step of ``model`` (a transformer or conv net) under
    ``config``, with the micro-batch, micro-batch count and recomputation of ``layout``.
    ``micro_batch_size`` / ``sequence_length`` (transformers) override them with arrays for a
    sweep in one call. ``implementation``: the software profile whose MoE layer's saved tensors
    the rows follow (transformers; default the Hugging Face eager modules')."""
    config = TrainingConfig() if config is None else argument(config, TrainingConfig, "config")
    layout = None if layout is None else argument(layout, Layout, "layout")
    if isinstance(model, TransformerSpec):
        return transformer_operators(
            model,
            config,
            layout,
            micro_batch_size=micro_batch_size,
            sequence_length=sequence_length,
            implementation=implementation,
        )
    if isinstance(model, ConvNetSpec):
        if not config.finetune.is_default:
            raise MlcostError(
                f"finetune: {config.finetune.describe()} is modelled for transformers; "
                f"{model.name} is a conv net (train it fully)"
            )
        if micro_batch_size is not None or sequence_length is not None:
            raise MlcostError(
                f"micro_batch_size: sweeps of the operator table take transformers; {model.name} "
                "is a conv net (give the batch in the layout)"
            )
        return convnet_operators(model, config, layout)
    raise MlcostError(f"model: {model.name!r} is a {model.KIND}, expected a transformer or convnet")


__all__ = [
    "ELEMENTWISE_FLOPS",
    "OPTIMIZERS",
    "PRECISION_POLICIES",
    "Operator",
    "OperatorKind",
    "OperatorRole",
    "OperatorTable",
    "OptimizerProfile",
    "PrecisionPolicy",
    "TrainingConfig",
    "attention_matmul_flops",
    "attention_pairs",
    "config_for_model",
    "convnet_operators",
    "operators",
    "transformer_operators",
]
