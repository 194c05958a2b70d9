"""The operator table of one training step of a ResNet-style conv net (He et al. 2016).

A convolution with ``C_in`` input and ``C_out`` output channels, a ``k x k`` kernel and an output
of ``H_out x W_out`` costs ``2·N·H_out·W_out·C_out·C_in·k^2`` FLOPs forward (one multiply-add per
weight per output position), and the same again for each gradient. The stem convolution reads the
image, which needs no gradient, so it has no input-gradient FLOPs (as ``torch.autograd`` skips
it). Spatial sizes follow torchvision's ResNet v1.5: "same" padding, so a stride-``t`` layer
maps ``H`` to ``ceil(H / t)``; the stride sits on the 3x3 convolution of a bottleneck.
"""

from __future__ import annotations

import math

from mlcost.layout import Layout
from mlcost.records import replace
from mlcost.specs.models import ConvNetSpec
from mlcost.workload.config import TrainingConfig
from mlcost.workload.optimizer import optimizer_operator
from mlcost.workload.table import Operator, OperatorTable, elementwise_operator


def _conv(
    name: str,
    block: str,
    n: int,
    size_in: int,
    c_in: int,
    c_out: int,
    kernel: int,
    stride: int,
    act: float,
    weight: float,
    grad: float,
    *,
    input_needs_grad: bool = True,
) -> tuple[Operator, int]:
    size_out = math.ceil(size_in / stride)
    positions = n * size_out * size_out
    forward = 2 * positions * c_out * c_in * kernel * kernel
    in_elements = n * size_in * size_in * c_in
    out_elements = positions * c_out
    weights = c_out * c_in * kernel * kernel
    op = Operator(
        name=name,
        kind="conv",
        block=block,
        count=1,
        forward_flops=forward,
        backward_input_flops=forward if input_needs_grad else 0,
        backward_weight_flops=forward,
        bytes_read=in_elements * act + weights * weight,
        bytes_written=out_elements * act,
        backward_bytes=2 * (in_elements + out_elements) * act + weights * (weight + grad),
        saved_bytes=in_elements * act,
        parameters=weights,
        m=positions,
        n=c_out,
        k=c_in * kernel * kernel,
    )
    return op, size_out


def _pointwise(
    name: str,
    kind: str,
    block: str,
    elements: int,
    key: str,
    act: float,
    *,
    parameters: int = 0,
    saved: float = 0.0,
    inputs: int = 1,
) -> Operator:
    return elementwise_operator(
        name,
        block,
        1,
        elements,
        key,
        activation_bytes=act,
        inputs=inputs,
        kind=kind,
        parameters=parameters,
        saved_elements=1,
        saved_element_bytes=saved,
    )


def convnet_operators(
    model: ConvNetSpec, config: TrainingConfig, layout: Layout | None = None
) -> OperatorTable:
    """Operator table of one training step of ``model`` at ``config.image_size`` (default: the
    model's own) with ``layout.micro_batch_size`` images per micro-batch and
    ``layout.micro_batches`` micro-batches."""
    layout = layout or Layout()
    n = layout.micro_batch_size
    policy = config.policy
    act, weight, grad = policy.activation, policy.weight, policy.gradient
    size = config.image_size or model.image_size
    ops: list[Operator] = []

    def conv_bn_relu(
        name: str,
        block: str,
        size_in: int,
        c_in: int,
        c_out: int,
        kernel: int,
        stride: int,
        *,
        relu: bool = True,
        input_needs_grad: bool = True,
    ) -> int:
        conv, size_out = _conv(
            name,
            block,
            n,
            size_in,
            c_in,
            c_out,
            kernel,
            stride,
            act,
            weight,
            grad,
            input_needs_grad=input_needs_grad,
        )
        ops.append(conv)
        elements = n * size_out * size_out * c_out
        ops.append(
            _pointwise(
                f"{name} batch norm",
                "norm",
                block,
                elements,
                "batchnorm",
                act,
                parameters=2 * c_out,
                saved=elements * act + 2 * c_out * 4,
            )
        )
        if relu:
            ops.append(
                _pointwise(
                    f"{name} relu", "activation", block, elements, "relu", act, saved=elements * act
                )
            )
        return size_out

    size = conv_bn_relu(
        "stem conv",
        "stem",
        size,
        model.input_channels,
        model.stem_channels,
        model.stem_kernel,
        2,
        input_needs_grad=False,
    )
    pooled = math.ceil(size / 2)
    pool_elements = n * pooled * pooled * model.stem_channels
    ops.append(
        Operator(
            name="stem max pool 3x3",
            kind="pool",
            block="stem",
            count=1,
            forward_flops=9 * pool_elements,
            backward_input_flops=pool_elements,
            bytes_read=n * size * size * model.stem_channels * act,
            bytes_written=pool_elements * act,
            saved_bytes=pool_elements * 8,
            note="saves argmax indices (int64)",
        )
    )
    size = pooled
    channels = model.stem_channels
    for index, (blocks, width, stride) in enumerate(
        zip(model.stage_blocks, model.stage_widths, model.stage_strides, strict=True), start=1
    ):
        out = width * model.block_expansion
        for block in range(blocks):
            label = f"stage{index}.{block}"
            block_stride = stride if block == 0 else 1
            c_in = channels if block == 0 else out
            if model.block == "bottleneck":
                s1 = conv_bn_relu(f"{label} conv1 1x1", f"stage{index}", size, c_in, width, 1, 1)
                s2 = conv_bn_relu(
                    f"{label} conv2 3x3", f"stage{index}", s1, width, width, 3, block_stride
                )
                size_out = conv_bn_relu(
                    f"{label} conv3 1x1", f"stage{index}", s2, width, out, 1, 1, relu=False
                )
            else:
                s1 = conv_bn_relu(
                    f"{label} conv1 3x3", f"stage{index}", size, c_in, width, 3, block_stride
                )
                size_out = conv_bn_relu(
                    f"{label} conv2 3x3", f"stage{index}", s1, width, out, 3, 1, relu=False
                )
            if block == 0 and (block_stride != 1 or c_in != out):
                conv_bn_relu(
                    f"{label} downsample 1x1",
                    f"stage{index}",
                    size,
                    c_in,
                    out,
                    1,
                    block_stride,
                    relu=False,
                )
            elements = n * size_out * size_out * out
            ops.append(
                _pointwise(
                    f"{label} residual add",
                    "elementwise",
                    f"stage{index}",
                    elements,
                    "add",
                    act,
                    inputs=2,
                )
            )
            ops.append(
                _pointwise(
                    f"{label} relu",
                    "activation",
                    f"stage{index}",
                    elements,
                    "relu",
                    act,
                    saved=elements * act,
                )
            )
            size = size_out
        channels = out
    pooled_elements = n * channels
    ops.append(
        _pointwise("global average pool", "pool", "head", n * size * size * channels, "add", act)
    )
    forward = 2 * n * channels * model.num_classes
    ops.append(
        Operator(
            name="classifier",
            kind="matmul",
            block="head",
            count=1,
            forward_flops=forward,
            backward_input_flops=forward,
            backward_weight_flops=forward,
            bytes_read=pooled_elements * act + channels * model.num_classes * weight,
            bytes_written=n * model.num_classes * act,
            saved_bytes=pooled_elements * act,
            parameters=channels * model.num_classes + model.num_classes,
            m=n,
            n=model.num_classes,
            k=channels,
        )
    )
    ops.append(
        _pointwise(
            "cross-entropy loss",
            "loss",
            "loss",
            n * model.num_classes,
            "cross-entropy",
            4,
            saved=n * model.num_classes * 4,
        )
    )

    micro = layout.micro_batches
    scaled = tuple(replace(op, count=op.count * micro) for op in ops)
    optimizer = optimizer_operator(model.parameter_count, config)
    return OperatorTable(
        operators=(*scaled, optimizer),
        description=f"{model.name}: {n} images of {config.image_size or model.image_size}px, "
        f"{config.precision}, {micro} micro-batch(es)",
        tokens_per_step=n * micro,
        metadata={"micro_batches": micro, "model": model.name, "config": config, "layout": layout},
    )
