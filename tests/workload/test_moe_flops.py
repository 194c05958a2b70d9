"""Mixture-of-experts FLOPs against PyTorch's FLOP counter on small real models.

Oracle: ``torch.utils.flop_counter.FlopCounterMode`` around ``model(**inputs).loss.backward()``
of small Hugging Face MoE models (:data:`tests.oracles.TINY_MOE_CONFIGS`) run on the CPU with
real tensors (routing decides which tokens each expert sees, so the meta device cannot run
them), eager attention and eager experts. A second, independent count: the tokens each expert
received, read from the routers' outputs with forward hooks, times each expert's GEMM FLOPs,
plus the router and dense GEMMs, written out by hand. Both must equal mlcost's table exactly:
the expert GEMMs' total depends only on ``sum_e T_e = T·k`` (every token goes to ``k``
distinct experts), whatever the routing.
"""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

from mlcost.layout import Layout  # noqa: E402
from mlcost.specs import from_hf_config  # noqa: E402
from mlcost.workload import TrainingConfig, operators  # noqa: E402
from tests.oracles import TINY_MOE_CONFIGS, hf_model, importable, training_inputs  # noqa: E402

POINTS = [(1, 32), (2, 64), (3, 48)]


def _config(seq: int) -> TrainingConfig:
    return TrainingConfig(
        sequence_length=seq, attention="eager", attention_flops="executed", precision="fp32"
    )


def _hf_flops(model: Any, config: dict[str, Any], batch: int, seq: int) -> int:
    with FlopCounterMode(display=False) as counter:
        model(**training_inputs(config, batch, seq, meta=False)).loss.backward()
    model.zero_grad()
    return int(counter.get_total_flops())


@pytest.mark.parametrize("family", sorted(TINY_MOE_CONFIGS))
def test_moe_training_flops_equal_flop_counter(family: str) -> None:
    config = TINY_MOE_CONFIGS[family]
    model = hf_model(config, meta=False, seed=0)
    spec = from_hf_config(importable(config))
    for batch, seq in POINTS:
        expected = _hf_flops(model, config, batch, seq)
        table = operators(spec, _config(seq), Layout(micro_batch_size=batch))
        assert table.matmul_flops().to("flop").magnitude == expected, (family, batch, seq)


def test_mixtral_flops_from_routed_token_counts() -> None:
    # Hand count from the routing the model actually made: hooks on each router record the
    # top-k expert indices; expert e of a layer saw T_e tokens.
    config = TINY_MOE_CONFIGS["mixtral"]
    model = hf_model(config, meta=False, seed=1)
    routed: list[Any] = []

    def record(_module: Any, _inputs: Any, output: Any) -> None:
        routed.append(output[2].detach().flatten())  # (logits, weights, indices)

    for layer in model.model.layers:
        layer.mlp.gate.register_forward_hook(record)
    batch, seq = 2, 40
    measured = _hf_flops(model, config, batch, seq)
    h, f, e, vocab = 128, 96, 8, 1000
    n_q, n_kv, d, layers = 4, 2, 32, 2
    tokens = batch * seq
    per_expert_tokens = [torch.bincount(ix, minlength=e) for ix in routed]
    assert all(int(c.sum()) == tokens * 2 for c in per_expert_tokens)  # top-2, distinct
    # Forward GEMM FLOPs; backward doubles every GEMM here (input and weight gradients).
    experts = sum(int(n) * (2 * h * 2 * f + 2 * f * h) for c in per_expert_tokens for n in c)
    router = layers * 2 * tokens * h * e
    attention = layers * (2 * tokens * h * (n_q + 2 * n_kv) * d + 2 * tokens * n_q * d * h)
    scores = layers * 2 * (2 * batch * n_q * seq * seq * d)  # QK^T and PV, full s x s
    head = 2 * tokens * h * vocab
    # The attention matmuls have no weight gradient but two input gradients: 3x as well.
    assert measured == 3 * (experts + router + attention + scores + head)
    ours = operators(
        from_hf_config(importable(config)), _config(seq), Layout(micro_batch_size=batch)
    )
    assert ours.matmul_flops().to("flop").magnitude == measured


def test_capacity_factor_drops_expert_flops() -> None:
    # With capacity factor c < 1 an expert computes at most c·T·k/E tokens (Fedus et al. 2022
    # section 2.2): under balanced routing the expert GEMMs shrink by c, nothing else changes.
    spec = from_hf_config(importable(TINY_MOE_CONFIGS["mixtral"]))
    capped = spec.model_copy(update={"moe": spec.moe.model_copy(update={"capacity_factor": 0.5})})  # type: ignore[union-attr]
    roomy = spec.model_copy(update={"moe": spec.moe.model_copy(update={"capacity_factor": 1.25})})  # type: ignore[union-attr]
    batch, seq, h, f, layers = 2, 64, 128, 96, 2
    # T·k tokens through gated experts (3·h·f weights, 2 FLOPs each), in each MoE layer:
    expert_forward = layers * 2 * (batch * seq * 2) * (3 * h * f)
    full, half, same = (
        operators(m, _config(seq), Layout(micro_batch_size=batch)).matmul_flops().magnitude
        for m in (spec, capped, roomy)
    )
    assert full - half == 0.5 * 3 * expert_forward  # forward + 2 x backward
    assert same == full
    table = operators(capped, _config(seq), Layout(micro_batch_size=batch))
    rows = {op.name: op for op in table.operators}
    # Per-expert GEMM rows: M = T·k/E·c = 128·2/8·0.5 = 16 tokens, once per expert and layer.
    assert rows["expert gate+up projection"].m == 16
    assert rows["expert gate+up projection"].count == 2 * 8


def test_model_flops_count_active_parameters() -> None:
    # Model FLOPs of the GEMMs with weights are 6 x tokens x the active matrix parameters the
    # tokens multiply (Kaplan et al. 2020's 6N, N active; the embedding lookup is no GEMM).
    spec = from_hf_config(importable(TINY_MOE_CONFIGS["olmoe"]))
    batch, seq = 2, 64
    table = operators(spec, _config(seq), Layout(micro_batch_size=batch))
    weights = sum(
        op.forward_flops * op.count + op.backward_flops * op.count
        for op in table.operators
        if op.kind == "matmul"
    )
    breakdown = spec.parameter_breakdown()
    gemm_active = spec.active_parameter_count - breakdown["embeddings"] - breakdown["norms"]
    # The QK-norm weights (q: 4 heads x 32, k: 4 x 32, in each of the 2 layers) are no GEMM.
    gemm_active -= 2 * (4 * 32 + 4 * 32)
    assert weights == 6 * batch * seq * gemm_active


def test_expert_parallel_makes_fewer_larger_expert_gemms() -> None:
    # ep = 4 of 8 experts: a GPU runs 2 local experts on 4 x T·k/E rows each; FLOPs unchanged.
    spec = from_hf_config(importable(TINY_MOE_CONFIGS["mixtral"]))
    batch, seq = 2, 64
    tables = {
        ep: operators(spec, _config(seq), Layout(dp=8, ep=ep, micro_batch_size=batch))
        for ep in (1, 4)
    }
    rows = {
        ep: {op.name: op for op in t.operators}["expert down projection"]
        for ep, t in tables.items()
    }
    assert (rows[1].m, rows[1].count) == (batch * seq * 2 / 8, 2 * 8)
    assert (rows[4].m, rows[4].count) == (4 * batch * seq * 2 / 8, 2 * 2)
    assert rows[4].gemm_group == 2
    assert tables[1].matmul_flops() == tables[4].matmul_flops()
