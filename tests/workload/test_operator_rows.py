"""The two factories that build almost every operator row, field by field: each argument given a
value no other field takes, and each field's expected value derived here by hand from the
factory's docstring formulas (a GEMM ``[m x k] · [k x n]`` is ``2·m·n·k`` FLOPs, Narayanan et al.
2021 section 5.1; element-wise FLOPs per element from ``ELEMENTWISE_FLOPS``, backward twice the
forward), so a value given to the wrong field must show here."""

from __future__ import annotations

from typing import Any

import pytest

from mlcost.workload.builder import gemm_operator
from mlcost.workload.config import PrecisionPolicy
from mlcost.workload.table import Operator, OperatorKind, OperatorRole, elementwise_operator

#: Byte sizes that differ from one another and from every count below, so a value taken from the
#: wrong tensor class shows; layer GEMMs in "lp", the others in "hp" (an FP8-like recipe).
POLICY = PrecisionPolicy(
    name="test",
    activation=3,
    gemm_input=5,
    weight=7,
    stored_weight=11,
    gradient=13,
    master_weight=17,
    compute_format="lp",
    layer_gemms_only=True,
    high_precision_format="hp",
)


def _fields(op: Operator) -> dict[str, Any]:
    return {name: getattr(op, name) for name in Operator.__struct_fields__}


#: The three flags one at a time: any two of them swapped differ in one of these.
FLAGS = (
    {"tensor_parallel": True, "row_parallel": False, "saved_replicated": False},
    {"tensor_parallel": False, "row_parallel": True, "saved_replicated": False},
    {"tensor_parallel": False, "row_parallel": False, "saved_replicated": True},
)


def _gemm(block: str, flags: dict[str, bool] = FLAGS[0]) -> Operator:
    return gemm_operator(
        "q projection", block, 19, 2, 3, 5, policy=POLICY, bias=True, saves_input=True,
        input_needs_grad=False, recompute_fraction=0.25, fuse_group="qkv", note="a note",
        **flags,
    )  # fmt: skip


@pytest.mark.parametrize("flags", FLAGS)
def test_a_layer_gemm_row_has_every_field_in_its_place(flags: dict[str, bool]) -> None:
    # m=2, n=3, k=5 in the layers' low-precision format: input 5 B, weight 7 B, activation and
    # output gradient 3 B, weight gradient 13 B.
    forward = 2 * 2 * 3 * 5  # 60
    assert _fields(_gemm("layer", flags)) == {
        "name": "q projection",
        "kind": OperatorKind.MATMUL,
        "block": "layer",
        "count": 19,
        "forward_flops": forward,
        "backward_input_flops": 0,  # the input needs no gradient
        "backward_weight_flops": forward,
        "bytes_read": 2 * 5 * 5 + 5 * 3 * 7,  # X [m x k] and W [k x n]: 155
        "bytes_written": 2 * 3 * 3,  # Y [m x n]: 18
        # dX = dY·W^T reads dY, W and writes dX; dW = X^T·dY reads X, dY and writes dW
        "backward_bytes": (6 * 3 + 15 * 7 + 10 * 3) + (10 * 5 + 6 * 3 + 15 * 13),  # 416
        "saved_bytes": 2 * 5 * 5,  # its input, as the GEMM reads it: 50
        "parameters": 5 * 3 + 3,  # weight and bias: 18
        "parameter_tensors": 2,  # the weight and the bias
        "recompute_fraction": 0.25,
        "region_input_bytes": 0.0,
        "recomputed_alone": 0.0,
        "m": 2,
        "n": 3,
        "k": 5,
        "gemm_batch": 0,
        "gemm_group": 0,
        "role": OperatorRole.NONE,
        "pattern": "",
        "fuse_group": "qkv",
        "format": "",  # the table's own format
        "note": "a note",
        **flags,
    }


def test_a_gemm_outside_the_layers_runs_in_the_other_format() -> None:
    # The head under an FP8-like recipe: the high-precision format, its input as an activation
    # (3 B) and its weight as stored (11 B).
    row = _fields(_gemm("head"))
    assert row["format"] == "hp"
    assert row["bytes_read"] == 2 * 5 * 3 + 5 * 3 * 11  # 195
    assert row["saved_bytes"] == 2 * 5 * 3  # 30


def test_an_elementwise_row_has_every_field_in_its_place() -> None:
    row = elementwise_operator(
        "mlp activation", "layer", 23, 7, "gelu", activation_bytes=3, inputs=2,
        saved_elements=4, saved_element_bytes=5, kind="activation", parameters=9,
        parameter_tensors=2, recompute_fraction=0.5, role=OperatorRole.MLP_INTERMEDIATE,
        pattern="local", tensor_parallel=True, note="another note",
    )  # fmt: skip
    forward = 8 * 7  # GELU: 8 FLOPs per element, 7 elements
    assert _fields(row) == {
        "name": "mlp activation",
        "kind": "activation",
        "block": "layer",
        "count": 23,
        "forward_flops": forward,
        "backward_input_flops": 2 * forward,
        "backward_weight_flops": 0,
        "bytes_read": 2 * 7 * 3,  # two inputs
        "bytes_written": 7 * 3,
        "backward_bytes": 3 * 7 * 3,  # (inputs + 1) tensors
        "saved_bytes": 4 * 5,
        "parameters": 9,
        "parameter_tensors": 2,
        "recompute_fraction": 0.5,
        "region_input_bytes": 0.0,
        "recomputed_alone": 0.0,
        "m": 0,
        "n": 0,
        "k": 0,
        "gemm_batch": 0,
        "gemm_group": 0,
        "role": OperatorRole.MLP_INTERMEDIATE,
        "pattern": "local",
        "tensor_parallel": True,
        "row_parallel": False,
        "fuse_group": "",
        "saved_replicated": False,
        "format": "",
        "note": "another note",
    }
