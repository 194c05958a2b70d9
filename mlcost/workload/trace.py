"""Tracing a real PyTorch module into an operator table (optional extra: ``mlcost[bench]``).

:func:`trace` moves nothing and computes nothing: it runs ``module`` forward and backward on
PyTorch's meta device, counting GEMM-like FLOPs with ``torch.utils.flop_counter.FlopCounterMode``
(per module, forward and backward separately) and the bytes of every tensor autograd saves for
backward with ``torch.autograd.graph.saved_tensors_hooks`` (each storage counted once). Parameters
and buffers are not counted as saved activations.

The backward FLOPs of a module are split into weight-gradient FLOPs (equal to the forward FLOPs
of its ``nn.Linear`` / ``nn.ConvNd`` layers whose weight requires a gradient) and input-gradient
FLOPs (the rest).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from mlcost.arrays import Real
from mlcost.errors import MlcostError
from mlcost.workload.table import Operator, OperatorTable

try:  # torch is an optional dependency
    import torch
    from torch.utils.flop_counter import FlopCounterMode
except ImportError:  # pragma: no cover - exercised only without the extra
    torch = None  # type: ignore[assignment]


def _require_torch() -> None:
    if torch is None:
        raise MlcostError("trace: needs PyTorch; install the extra: pip install 'mlcost[bench]'")


def _default_loss(output: Any) -> Any:
    if hasattr(output, "loss") and output.loss is not None:
        return output.loss
    if isinstance(output, (tuple, list)):
        output = output[0]
    if hasattr(output, "logits"):
        output = output.logits
    return output.float().sum()


def _to_meta(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.to("meta")
    if isinstance(value, (list, tuple)):
        return type(value)(_to_meta(v) for v in value)
    if isinstance(value, dict):
        return {k: _to_meta(v) for k, v in value.items()}
    return value


def _totals(counter: Any) -> dict[str, int]:
    return {name: int(sum(ops.values())) for name, ops in counter.get_flop_counts().items()}


def trace(
    module: Any,
    example_inputs: Sequence[Any] | dict[str, Any],
    *,
    loss: Callable[[Any], Any] | None = None,
    depth: int = 1,
) -> OperatorTable:
    """Operator table of one forward + backward of ``module`` on ``example_inputs``.

    ``example_inputs`` is a tuple of positional arguments or a dict of keyword arguments; they
    and a copy of the module are moved to the meta device (the caller's module stays where it
    is). ``loss`` turns the output into a scalar (default: ``output.loss`` when present, else
    the sum of the first output). ``depth`` is how deep in the module tree rows are reported
    (1: the module's direct children); FLOPs outside those rows form a ``(top level)`` row.
    """
    _require_torch()
    if not isinstance(module, torch.nn.Module):
        raise MlcostError(f"trace: got {type(module).__name__}, expected a torch.nn.Module")
    if depth < 1:
        raise MlcostError(f"trace: depth: got {depth}, expected 1 or more")
    meta_module = copy.deepcopy(module).to("meta")
    meta_module.train()
    inputs = _to_meta(example_inputs)
    root = type(meta_module).__name__
    reported = {
        name: sub
        for name, sub in meta_module.named_modules()
        if name and name.count(".") == depth - 1
    }
    parameter_storages = {id(p.untyped_storage()) for p in meta_module.parameters()}
    parameter_storages |= {id(b.untyped_storage()) for b in meta_module.buffers()}
    seen: set[int] = set()
    saved: dict[str, int] = {}
    current: list[str] = []

    def pack(tensor: Any) -> Any:
        storage = tensor.untyped_storage()
        key = id(storage)
        if key not in parameter_storages and key not in seen:
            seen.add(key)
            owner = current[-1] if current else ""
            saved[owner] = saved.get(owner, 0) + int(storage.nbytes())
        return tensor

    def enter(name: str) -> Callable[..., None]:
        def hook(*_: Any) -> None:
            current.append(name)

        return hook

    def leave(*_: Any) -> None:
        current.pop()

    handles = []
    for name, sub in reported.items():
        handles.append(sub.register_forward_pre_hook(enter(name)))
        handles.append(sub.register_forward_hook(leave))
    counter = FlopCounterMode(display=False)
    try:
        with counter, torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            output = meta_module(**inputs) if isinstance(inputs, dict) else meta_module(*inputs)
            value = (loss or _default_loss)(output)
            forward = _totals(counter)
            value.backward()
    finally:
        for handle in handles:
            handle.remove()
    total = _totals(counter)
    weight_grad = _weight_gradient_flops(meta_module, forward, root)
    rows = []
    for name, sub in reported.items():
        key = f"{root}.{name}"
        fwd = forward.get(key, 0)
        bwd = total.get(key, 0) - fwd
        w = min(weight_grad.get(name, 0), bwd)
        rows.append(
            Operator(
                name=name,
                kind=type(sub).__name__,
                block="traced",
                count=1,
                forward_flops=fwd,
                backward_input_flops=bwd - w,
                backward_weight_flops=w,
                saved_bytes=saved.get(name, 0),
                parameters=sum(p.numel() for p in sub.parameters()),
                parameter_tensors=len(list(sub.parameters())),
            )
        )
    rest_forward: Real = forward.get("Global", 0) - sum(op.forward_flops for op in rows)
    rest_backward: Real = total.get("Global", 0) - forward.get("Global", 0)
    rest_backward -= sum(op.backward_flops for op in rows)
    listed = {p for sub in reported.values() for p in sub.parameters()}
    rows.append(
        Operator(
            name="(top level)",
            kind=root,
            block="traced",
            count=1,
            forward_flops=rest_forward,
            backward_input_flops=rest_backward,
            saved_bytes=saved.get("", 0),
            parameters=sum(p.numel() for p in meta_module.parameters() if p not in listed),
            parameter_tensors=sum(1 for p in meta_module.parameters() if p not in listed),
        )
    )
    return OperatorTable(
        operators=tuple(rows),
        description=f"traced {root} on the meta device",
        metadata={"micro_batches": 1},
    )


def _weight_gradient_flops(module: Any, forward: dict[str, int], root: str) -> dict[str, int]:
    """Forward GEMM FLOPs of weight-bearing layers whose weight needs a gradient (their weight
    gradient costs the same), summed up to every ancestor name."""
    layer_types = (torch.nn.Linear, torch.nn.Conv1d, torch.nn.Conv2d, torch.nn.Conv3d)
    totals: dict[str, int] = {}
    for name, sub in module.named_modules():
        if name and isinstance(sub, layer_types) and sub.weight.requires_grad:
            flops = forward.get(f"{root}.{name}", 0)
            parts = name.split(".")
            for end in range(1, len(parts) + 1):
                prefix = ".".join(parts[:end])
                totals[prefix] = totals.get(prefix, 0) + flops
    return totals
