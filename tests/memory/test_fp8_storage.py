"""FP8 storage of weights and BF16 optimizer moments (issue 61), against hand derivations from
the published configs and the sources' statements of what each tensor is held in.

* ``fp8-params``: Transformer Engine's ``fp8_model_init`` / Megatron-LM's
  ``--fp8-param-gather`` keep the linears' weights in FP8 (1 byte); embeddings, norms and the
  output layer stay BF16; the master weights FP32.
* ``adamw-bf16``: DeepSeek-V3 (arXiv 2412.19437, section 3.3.3) tracks AdamW's two moments in
  BF16 (2 + 2 bytes), master weights and gradients in FP32.
"""

from __future__ import annotations

import pytest

import mlcost
from mlcost.finetune import FineTuning
from mlcost.layout import Layout
from mlcost.memory import MemoryTerm
from mlcost.memory.states import model_state_bytes_per_parameter
from mlcost.parallel import multi_gpu_step_time
from mlcost.specs import default_catalog
from mlcost.workload import TrainingConfig

# Llama-2-70B's config.json (meta-llama/Llama-2-70b-hf): h 8192, 80 layers, 64 heads of 128,
# 8 KV heads, FFN 28672, vocabulary 32000, untied head, RMSNorm without bias.
H, L, F, V, KV = 8192, 80, 28672, 32000, 8 * 128
LINEARS = L * (2 * H * H + 2 * H * KV + 3 * H * F)  # q, o; k, v; gate, up, down
OTHERS = 2 * V * H + (2 * L + 1) * H  # embedding, head, two norms a layer and the final one


def _llama() -> mlcost.ModelSpec:
    return default_catalog().model("llama-2-70b")


def test_layer_linears_and_the_rest_add_up_to_the_published_count() -> None:
    # 68,976,648,192: Llama-2-70B's parameter count (transformers' model on the meta device).
    assert LINEARS + OTHERS == 68_976_648_192 == _llama().parameter_count


def test_fp8_params_hold_the_linears_in_one_byte() -> None:
    per_param = model_state_bytes_per_parameter("fp8-params", "adamw", model=_llama())
    total = per_param[MemoryTerm.WEIGHTS] * (LINEARS + OTHERS)
    assert total == pytest.approx(LINEARS * 1 + OTHERS * 2, rel=1e-12)
    # What the optimizer keeps does not change: FP32 master weights and two FP32 moments.
    assert per_param[MemoryTerm.MASTER_WEIGHTS] == 4
    assert per_param[MemoryTerm.OPTIMIZER_STATES] == 8
    # The FP8 recipe without FP8 storage keeps the BF16 parameters (fp8_model_init off).
    assert model_state_bytes_per_parameter("fp8", "adamw", model=_llama())[MemoryTerm.WEIGHTS] == 2


def test_lora_on_an_fp8_base_stores_the_frozen_linears_in_one_byte() -> None:
    # LoRA r=16 on q, k, v and o (the MLPerf Llama-2-70B LoRA targets): the adapters, r·(d_in +
    # d_out) per targeted linear, train in BF16; the frozen base's linears sit in FP8.
    tuning = FineTuning(
        method="lora", rank=16, target_modules=("q_proj", "k_proj", "v_proj", "o_proj")
    )
    adapters = L * 16 * ((H + H) + (H + KV) + (H + KV) + (H + H))
    per_param = model_state_bytes_per_parameter(
        "fp8-params", "adamw", model=_llama(), finetune=tuning
    )
    weights = per_param[MemoryTerm.WEIGHTS] * (LINEARS + OTHERS)
    assert weights == pytest.approx(LINEARS * 1 + OTHERS * 2 + adapters * 2, rel=1e-9)
    assert per_param[MemoryTerm.OPTIMIZER_STATES] * (LINEARS + OTHERS) == pytest.approx(
        adapters * 8, rel=1e-9
    )


def test_adamw_with_bf16_moments_keeps_four_bytes_of_state() -> None:
    per_param = model_state_bytes_per_parameter("bf16-mixed", "adamw-bf16", gradient_bytes=4)
    # DeepSeek-V3 section 3.3.3: BF16 weights 2, FP32 gradients 4, FP32 master 4, moments 2 + 2.
    assert sum(per_param.values()) == 14
    assert per_param[MemoryTerm.OPTIMIZER_STATES] == 4


def test_the_fp8_parameters_are_what_the_zero3_all_gather_moves() -> None:
    # ZeRO-3 gathers the whole replica's weights (its message is the stored weights of all P
    # parameters), so FP8 storage sends 1 byte per linear weight instead of 2.
    layout = Layout(dp=8, zero_stage=3, micro_batch_size=1, gradient_accumulation=1)
    message = {}
    for precision in ("fp8", "fp8-params"):
        config = TrainingConfig(sequence_length=4096, precision=precision)
        step = multi_gpu_step_time(_llama(), config, "dgx-h100", layout)
        terms = step.terms.set_index("strategy")
        message[precision] = terms.loc["ZeRO-3 parameters", "message_bytes"]
    assert message["fp8"] == pytest.approx((LINEARS + OTHERS) * 2, rel=1e-12)
    assert message["fp8-params"] == pytest.approx(LINEARS * 1 + OTHERS * 2, rel=1e-12)
