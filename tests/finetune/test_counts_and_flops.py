"""Trainable parameters and GEMM FLOPs of fine-tuning against ``peft`` and PyTorch.

Oracles:

* ``peft.get_peft_model(model, LoraConfig(...))`` on the Hugging Face reference implementations
  built on the meta device from the config dicts of :mod:`tests.oracles`: the trainable
  parameters are ``sum(p.numel() for p in model.parameters() if p.requires_grad)`` (what
  ``print_trainable_parameters`` prints); for full fine-tuning with frozen parts, the same sum
  after ``requires_grad_(False)`` on those parts. Exact equality.
* ``torch.utils.flop_counter.FlopCounterMode`` around forward and ``loss.backward()`` of the
  wrapped model (eager attention): frozen linears run only their input-gradient GEMM, adapters
  add ``A`` and ``B``. Exact equality (the dense counts are exact, see
  tests/workload/test_flop_counter.py).
"""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")

from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

import mlcost  # noqa: E402
from mlcost.errors import MlcostError  # noqa: E402
from mlcost.finetune import FineTuning, adapter_parameters, trainable_parameters  # noqa: E402
from mlcost.layout import Layout  # noqa: E402
from mlcost.specs import from_hf_config  # noqa: E402
from mlcost.workload import TrainingConfig, operators  # noqa: E402
from tests.oracles import HF_CONFIGS, hf_model, training_inputs  # noqa: E402

#: (catalog model, peft target_modules): two models of each naming, two or more target sets.
CASES = [
    ("llama-3-8b", ["q_proj", "v_proj"]),
    ("llama-3-8b", "all-linear"),
    ("llama-2-7b", ["q_proj", "k_proj", "v_proj", "o_proj"]),
    ("qwen2-7b", ["q_proj", "k_proj", "down_proj"]),  # Qwen2 has Q/K/V biases
    ("gpt2", ["c_attn"]),
    ("gpt2-medium", ["c_attn", "c_proj", "c_fc"]),
    ("gpt2", "all-linear"),
]


def _targets(targets: str | list[str]) -> tuple[str, ...]:
    return (targets,) if isinstance(targets, str) else tuple(targets)


def peft_model(config: dict[str, Any], rank: int, targets: Any, bias: str, **kwargs: Any) -> Any:
    peft = pytest.importorskip("peft")  # imported where used: 1.5 s, not at collection
    lora = peft.LoraConfig(
        r=rank, lora_alpha=2 * rank, target_modules=targets, bias=bias, task_type="CAUSAL_LM",
        fan_in_fan_out=config["model_type"] == "gpt2",  # GPT-2's Conv1D stores W transposed
    )  # fmt: skip
    return peft.get_peft_model(hf_model(config, **kwargs), lora)


def requires_grad_count(model: Any) -> int:
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@pytest.mark.parametrize(("name", "targets"), CASES)
@pytest.mark.parametrize("bias", ["none", "all", "lora_only"])
def test_lora_trainable_parameters_equal_peft(name: str, targets: Any, bias: str) -> None:
    wrapped = peft_model(HF_CONFIGS[name], 16, targets, bias)
    tuning = FineTuning(
        method="lora", rank=16, alpha=32, target_modules=_targets(targets), bias=bias
    )
    assert trainable_parameters(mlcost.model(name), tuning) == requires_grad_count(wrapped)


def test_published_llama_3_8b_all_linear_rank_16() -> None:
    # Hand count: per layer r·(d_in + d_out) over q (4096->4096), k and v (4096->1024),
    # o (4096->4096), gate and up (4096->14336), down (14336->4096), times 32 layers, r = 16.
    per_layer = 16 * (8192 + 2 * 5120 + 8192 + 3 * 18432)
    assert per_layer * 32 == 41_943_040
    tuning = FineTuning(method="lora", rank=16, target_modules=("all-linear",))
    assert adapter_parameters(mlcost.model("llama-3-8b"), tuning) == 41_943_040


PARTS: dict[str, Any] = {
    "llama": {
        "embeddings": lambda m: [m.model.embed_tokens],
        "lm_head": lambda m: [m.lm_head],
        "layers": lambda m: m.model.layers,
    },
    "gpt2": {
        "embeddings": lambda m: [m.transformer.wte, m.transformer.wpe],
        "lm_head": lambda m: [m.lm_head],
        "layers": lambda m: m.transformer.h,
    },
}


def freeze(model: Any, family: str, parts: tuple[str, ...], layers: int) -> None:
    for part in parts:
        if part == "norms":
            for name, parameter in model.named_parameters():
                if "norm" in name or ".ln_" in name:
                    parameter.requires_grad_(False)
            continue
        for module in PARTS[family][part](model):
            module.requires_grad_(False)
    for layer in list(PARTS[family]["layers"](model))[:layers]:
        layer.requires_grad_(False)


@pytest.mark.parametrize("name", ["llama-3-8b", "gpt2"])
@pytest.mark.parametrize(
    ("parts", "layers"),
    [(("embeddings",), 0), (("lm_head",), 0), ((), 4), (("embeddings", "norms"), 2)],
)
def test_full_with_frozen_parts_equals_requires_grad(
    name: str, parts: tuple[str, ...], layers: int
) -> None:
    model = hf_model(HF_CONFIGS[name])
    freeze(model, "gpt2" if name == "gpt2" else "llama", parts, layers)
    tuning = FineTuning(frozen=parts, frozen_layers=layers)  # type: ignore[arg-type]
    assert trainable_parameters(mlcost.model(name), tuning) == requires_grad_count(model)


TINY_LLAMA = {
    "model_type": "llama",
    "hidden_size": 128,
    "intermediate_size": 344,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "vocab_size": 1000,
    "max_position_embeddings": 512,
}
TINY_GPT2 = {
    "model_type": "gpt2",
    "n_embd": 128,
    "n_layer": 2,
    "n_head": 4,
    "vocab_size": 1000,
    "n_positions": 512,
    "resid_pdrop": 0.0,
    "embd_pdrop": 0.0,
    "attn_pdrop": 0.0,
}


def step_flops(model: Any, config: dict[str, Any], batch: int, seq: int) -> int:
    with FlopCounterMode(display=False) as counter:
        model(**training_inputs(config, batch, seq)).loss.backward()
    return int(counter.get_total_flops())


@pytest.mark.parametrize(
    ("config", "targets"),
    [
        (TINY_LLAMA, ["q_proj", "v_proj"]),
        (TINY_LLAMA, "all-linear"),
        (TINY_GPT2, ["c_attn"]),
        (TINY_GPT2, ["c_proj", "c_fc"]),
    ],
)
def test_lora_gemm_flops_equal_flop_counter(config: dict[str, Any], targets: Any) -> None:
    spec = from_hf_config(config, name="tiny")
    for batch, seq in ((1, 128), (2, 256)):
        wrapped = peft_model(config, 8, targets, "none")
        # The embedding output requires a gradient, as peft's prepare_model_for_kbit_training
        # and gradient checkpointing set it (mlcost.workload.adapters' convention).
        wrapped.enable_input_require_grads()
        expected = step_flops(wrapped, config, batch, seq)
        tuning = FineTuning(method="lora", rank=8, alpha=16, target_modules=_targets(targets))
        training = TrainingConfig(sequence_length=seq, attention="eager", finetune=tuning)
        table = operators(spec, training, Layout(micro_batch_size=batch))
        assert table.matmul_flops().to("flop").magnitude == expected


def test_frozen_linear_costs_four_not_six_flops_per_weight_and_token() -> None:
    # Hand derivation: a frozen linear of N weights over T tokens runs forward 2·N·T and the
    # input gradient 2·N·T, no weight gradient: 4·N·T against 6·N·T when it trains.
    spec = from_hf_config(TINY_LLAMA, name="tiny")
    tuning = FineTuning(method="lora", target_modules=("q_proj",))
    table = operators(spec, TrainingConfig(sequence_length=256, finetune=tuning))
    (k_projection,) = [op for op in table.operators if op.name == "k projection"]
    n_weights, tokens = 128 * 64, 256
    total = k_projection.forward_flops + k_projection.backward_flops
    assert total == 4 * n_weights * tokens


def test_frozen_layers_below_frozen_embeddings_run_forward_only() -> None:
    # PyTorch records no graph below the first trainable parameter: with the embeddings and the
    # first layer frozen, that layer's GEMMs have no backward at all.
    spec = from_hf_config(TINY_LLAMA, name="tiny")
    config = TrainingConfig(
        sequence_length=128, finetune=FineTuning(frozen=("embeddings",), frozen_layers=1)
    )
    model = hf_model(TINY_LLAMA)
    freeze(model, "llama", ("embeddings",), 1)
    expected = step_flops(model, TINY_LLAMA, 2, 128)
    config = config.model_copy(update={"attention": "eager"})
    table = operators(spec, config, Layout(micro_batch_size=2))
    assert table.matmul_flops().to("flop").magnitude == expected


@pytest.mark.parametrize(
    "options",
    [
        {"method": "lora", "target_modules": ("qkv",)},
        {"method": "full", "target_modules": ("q_proj",)},
        {"method": "lora", "frozen": ("embeddings",)},
        {"method": "lora", "rank": 0},
        {"method": "dora"},
    ],
)
def test_bad_fine_tuning_is_one_clear_error(options: dict[str, Any]) -> None:
    with pytest.raises(MlcostError) as error:
        FineTuning(**options)
    assert "\n" not in str(error.value) or "problems" in str(error.value)


def test_targets_missing_from_the_model_are_refused() -> None:
    tuning = FineTuning(method="lora", target_modules=("c_attn",))
    with pytest.raises(MlcostError, match="c_attn"):
        trainable_parameters(mlcost.model("llama-3-8b"), tuning)


@pytest.mark.parametrize("name", ["mixtral-8x7b", "olmoe-1b-7b"])
def test_lora_all_linear_on_experts_equals_peft(name: str) -> None:
    # Issue 63: every expert, the router and the attention get adapters, not one dense MLP per
    # layer. peft on transformers 5 targets the fused 3-D expert parameters (gate_up_proj at rank
    # 2r, down_proj at r, one adapter per expert) and the router; the oracle is its
    # requires_grad count on the meta-device model (Mixtral: 359,665,664, where one dense MLP
    # per layer gave 41.9M).
    from tests.oracles import MOE_HF_CONFIGS

    wrapped = peft_model(MOE_HF_CONFIGS[name], 16, "all-linear", "none")
    tuning = FineTuning(method="lora", rank=16, alpha=32, target_modules=("all-linear",))
    assert trainable_parameters(mlcost.model(name), tuning) == requires_grad_count(wrapped)


def test_lora_on_mixtral_experts_by_hand() -> None:
    # Hand count per layer, r = 16: q, o (4096 -> 4096), k, v (4096 -> 1024): 16 x 26,624; the
    # router 4096 -> 8: 16 x 4,104; 8 experts, each gate+up fused (4096 -> 28,672) at rank 32 and
    # down (14,336 -> 4,096) at rank 16. Times 32 layers.
    per_layer = 16 * 26_624 + 16 * 4_104 + 8 * (32 * (4_096 + 28_672) + 16 * (14_336 + 4_096))
    tuning = FineTuning(method="lora", rank=16, target_modules=("all-linear",))
    assert adapter_parameters(mlcost.model("mixtral-8x7b"), tuning) == per_layer * 32
