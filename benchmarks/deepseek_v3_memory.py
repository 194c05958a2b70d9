"""DeepSeek-V3's published layout judged by mlcost's memory model, as it ran and as before.

The layout (arXiv 2412.19437, section 3.2): 2,048 GPUs, PP 16, EP 64, ZeRO-1 over DP 128, no
tensor parallelism, sequence 4096, micro-batch 1, 15,360 sequences a step, FP8 GEMMs, BF16
AdamW moments; recomputation of the RMSNorms and the MLA up-projections (section 3.2.3) and the
SwiGLU output (section 3.3.3), i.e. Megatron-Core's ``--recompute-modules
layernorm,mla_up_proj,moe_act``. Prints the per-GPU memory of the most loaded pipeline stage on
an 80 GB H100 (the H800 has the same memory) with the Hugging Face eager MoE tensors and with
Megatron-Core's (``Implementation.moe_saving``), without and with the recomputation regions.

Run: ``.venv/bin/python benchmarks/deepseek_v3_memory.py``
"""

from __future__ import annotations

from typing import Any

from mlcost.layout import Layout
from mlcost.memory import memory_breakdown
from mlcost.workload import TrainingConfig

CONFIG = TrainingConfig(sequence_length=4096, precision="fp8", optimizer="adamw-bf16")
PUBLISHED = {"dp": 128, "tp": 1, "pp": 16, "ep": 64, "micro_batch_size": 1,
             "global_batch_size": 15360, "zero_stage": 1}  # fmt: skip
DEEPSEEK_MODULES = ("layernorm", "mla_up_proj", "moe_act")
CASES: tuple[tuple[str, dict[str, Any], str | None], ...] = (
    ("no recomputation, Hugging Face eager MoE tensors", {}, None),
    ("no recomputation, megatron-core MoE tensors", {}, "megatron-core"),
    ("selective (core_attn), megatron-core", {"recompute": "selective"}, "megatron-core"),
    ("selective layernorm,mla_up_proj,moe_act, eager MoE tensors",
     {"recompute": "selective", "recompute_modules": DEEPSEEK_MODULES}, None),
    ("selective layernorm,mla_up_proj,moe_act, megatron-core (as it ran)",
     {"recompute": "selective", "recompute_modules": DEEPSEEK_MODULES}, "megatron-core"),
    ("full recomputation, megatron-core", {"recompute": "full"}, "megatron-core"),
)  # fmt: skip


def main() -> None:
    for label, extra, software in CASES:
        layout = Layout(**PUBLISHED, **extra)
        memory = memory_breakdown(
            "deepseek-v3", CONFIG, "h100-sxm5-80gb", layout, implementation=software
        )
        total = memory.total.to("GiB").magnitude
        activations = memory.term("activations").to("GiB").magnitude
        verdict = "fits" if bool(memory.fits()) else "does not fit"
        headroom = memory.headroom.to("GiB").magnitude
        print(f"{label:66s} {total:7.1f} GiB  activations {activations:6.1f} GiB  "
              f"{verdict} ({headroom:+.1f} GiB)")  # fmt: skip


if __name__ == "__main__":
    main()
