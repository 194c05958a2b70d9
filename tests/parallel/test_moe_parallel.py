"""Expert parallelism through memory, traffic, search and plans, against hand derivations.

Sources of the expectations: the parameter counts of Mixtral-8x7B (46,702,792,704 in all, checked
against transformers in tests/specs/test_moe_models.py) and of its routed experts written out
below; ZeRO's per-parameter bytes (Rajbhandari et al. 2020, section 5: BF16 weights 2 B, FP32
gradients... as the BF16-mixed policy keeps them) sharded as DeepSpeed-MoE and Megatron-Core
shard expert states (over the ``dp/ep`` ranks holding the same experts); the GShard all-to-all
(Lepikhin et al. 2021, section 3.2): dispatch and combine, forward and backward, of the ``T·k``
routed token copies of ``h`` values per MoE layer.
"""

from __future__ import annotations

import numpy as np
import pytest

import mlcost
from mlcost.errors import MlcostError
from mlcost.layout import Layout
from mlcost.memory import memory_breakdown
from mlcost.memory.states import model_state_bytes_per_parameter
from mlcost.memory.terms import MemoryTerm
from mlcost.parallel import multi_gpu_step_time
from mlcost.parallel.search import SearchSpace, search
from mlcost.workload import TrainingConfig

TOTAL = 46_702_792_704  # Mixtral-8x7B, transformers on the meta device
ROUTED = 32 * 8 * 3 * 4096 * 14336  # 32 layers x 8 experts x SwiGLU(4096, 14336)
CONFIG = TrainingConfig(sequence_length=4096)


def test_mixtral_routed_expert_count_by_hand() -> None:
    assert mlcost.model("mixtral-8x7b").expert_parameter_count == ROUTED


@pytest.mark.parametrize(("dp", "ep", "zero"), [(8, 1, 0), (8, 8, 0), (8, 4, 1), (16, 8, 3)])
def test_expert_parallel_shards_expert_states(dp: int, ep: int, zero: int) -> None:
    layout = Layout(dp=dp, ep=ep, zero_stage=zero, micro_batch_size=1, gradient_accumulation=1)
    breakdown = memory_breakdown("mixtral-8x7b", CONFIG, "h100-sxm5-80gb", layout)
    # Megatron-Core (the default implementation) holds FP32 main gradients: 4 bytes.
    per_parameter = model_state_bytes_per_parameter("bf16-mixed", "adamw", gradient_bytes=4)
    dense = TOTAL - ROUTED
    shards_from = {MemoryTerm.WEIGHTS: 3, MemoryTerm.GRADIENTS: 2,
                   MemoryTerm.MASTER_WEIGHTS: 1, MemoryTerm.OPTIMIZER_STATES: 1}  # fmt: skip
    for term, start in shards_from.items():
        zero_dense = dp if zero >= start else 1
        zero_experts = dp // ep if zero >= start else 1
        expected = per_parameter[term] * (dense / zero_dense + ROUTED / ep / zero_experts)
        assert breakdown.term(term).to("byte").magnitude == pytest.approx(expected, rel=1e-12)


def test_expert_parallel_all_to_all_bytes_calls_and_links() -> None:
    model = mlcost.model("mixtral-8x7b")
    # One micro-batch of 1 x 4096 tokens: per MoE layer 2 all-to-alls forward and 2 backward of
    # T·k·h BF16 values (4096 x 2 x 4096 x 2 bytes); 32 MoE layers.
    inside = Layout(dp=8, ep=8, micro_batch_size=1, gradient_accumulation=1)
    step = multi_gpu_step_time(model, CONFIG, "dgx-h100", inside)
    row = step.terms.set_index("strategy").loc["expert parallel"]
    assert row["bytes"] == 32 * 4 * (4096 * 2 * 4096 * 2)
    assert row["link"] == "intra-node"  # 8 ranks at stride t·c = 1 fill one 8-GPU node
    assert row["exposed"] == pytest.approx(row["time"], rel=1e-12)  # megatron-core r0.8
    # With t = 4 the 8 expert-parallel ranks are 4 apart: 32 GPUs, four nodes.
    across = Layout(dp=8, tp=4, ep=8, micro_batch_size=1, gradient_accumulation=1)
    wide = multi_gpu_step_time(model, CONFIG, "dgx-h100", across, nodes=4)
    wide_row = wide.terms.set_index("strategy").loc["expert parallel"]
    assert wide_row["link"] != "intra-node"
    assert wide_row["time"] > row["time"]


def test_all_to_all_only_in_moe_layers() -> None:
    # DeepSeek-V3: the first 3 of 61 layers are dense, so 58 MoE layers exchange tokens.
    model = mlcost.model("deepseek-v3")
    layout = Layout(dp=64, ep=64, micro_batch_size=1, gradient_accumulation=1, zero_stage=3)
    config = TrainingConfig(sequence_length=4096)
    step = multi_gpu_step_time(model, config, "dgx-h100", layout, nodes=8)
    row = step.terms.set_index("strategy").loc["expert parallel"]
    assert row["calls"] == 58 * 4
    assert row["bytes"] == 58 * 4 * (4096 * 8 * 7168 * 2)


def test_bad_expert_parallel_degree_is_one_clear_error() -> None:
    layout = Layout(dp=6, ep=6, micro_batch_size=1, gradient_accumulation=1)
    with pytest.raises(MlcostError, match="ep: got 6, expected a divisor of the 8 experts"):
        multi_gpu_step_time("mixtral-8x7b", CONFIG, "dgx-h100", layout)


def test_search_tries_expert_parallel_degrees() -> None:
    result = search(
        "mixtral-8x7b", "dgx-h100", 256, config=CONFIG, nodes=4, keep_unfit=True,
        space=SearchSpace(tensor_parallel=(1, 2, 4), pipeline_parallel=(1, 2),
                          context_parallel=(1,), micro_batch_sizes=(1,), zero_stages=(1,),
                          recompute=("selective",), sequence_parallel=(True,),
                          virtual_stages=(1,), tp_overlap=(False,)),
    )  # fmt: skip
    frame = result.frame
    assert set(frame["ep"]) == {1, 2, 4, 8}
    assert np.all(frame["dp"] % frame["ep"] == 0)
    # More expert parallelism never needs more memory per GPU (same other degrees).
    keys = ["dp", "tp", "pp"]
    for _, group in frame.groupby(keys):
        ordered = group.sort_values("ep")
        assert np.all(np.diff(ordered["memory_GiB"].to_numpy()) <= 1e-9)
    assert result.layout(0).ep == int(frame.iloc[0]["ep"])
    dense = search("llama-2-7b", "dgx-h100", 64, config=TrainingConfig(sequence_length=2048))
    assert set(dense.frame["ep"]) == {1}
    # Eight GPUs as d = 1 x t = 8 only: no expert-parallel degree of 2 divides d = 1.
    only = SearchSpace(tensor_parallel=(8,), pipeline_parallel=(1,), context_parallel=(1,),
                       expert_parallel=(2,))  # fmt: skip
    with pytest.raises(MlcostError, match="expert_parallel: no degree among"):
        search("mixtral-8x7b", "dgx-h100", 8, config=CONFIG, nodes=1, space=only)


def test_plan_of_an_moe_run_end_to_end() -> None:
    plan = mlcost.Plan(
        "mixtral-8x7b", system="dgx-h100", gpus=64, config=CONFIG, tokens=1e12,
        layout=Layout(dp=16, tp=4, ep=2, micro_batch_size=1, global_batch_size=512, zero_stage=1,
                      sequence_parallel=True, recompute="selective"),
    )  # fmt: skip
    assert plan.fits
    step = plan.step_time().detail
    # Model FLOPs count the active parameters (Kaplan et al. 2020's 6·N per token, N active:
    # 12,879,925,248, hand-counted in tests/specs/test_moe_models.py) plus attention's
    # 6·(2·L·s·h) per token for causal scores (about 15% here); never the total 46.7B.
    tokens = 512 * 4096
    six_n_active = 6 * 12_879_925_248 * tokens
    flops = step.model_flops.to("flop").magnitude
    assert six_n_active < flops < 1.25 * six_n_active
    assert 0.2 < step.mfu() < 0.8
    assert 1 < step.total.to("s").magnitude < 60


def test_grouped_expert_gemm_launches_once_per_layer() -> None:
    # Megatron-Core's grouped GEMM launches a layer's local experts together; the Hugging Face
    # eager experts launch one GEMM per expert: E times the launches (8 for Mixtral).
    from mlcost.implementation import implementation
    from mlcost.timing import step_time

    grouped = implementation("megatron-core")
    assert grouped.spec.grouped_expert_gemm
    one_by_one = implementation(
        grouped.spec.model_copy(update={"grouped_expert_gemm": False, "name": "per-expert"})
    )
    layout = Layout(micro_batch_size=1)
    times = {
        label: {
            row.name: row
            for row in step_time("mixtral-8x7b", CONFIG, "h100-sxm5-80gb", layout,
                                 implementation=impl).rows
        }["expert down projection"]
        for label, impl in (("grouped", grouped), ("per-expert", one_by_one))
    }  # fmt: skip
    assert times["per-expert"].host == pytest.approx(8 * times["grouped"].host, rel=1e-12)
