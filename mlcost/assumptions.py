"""The defaults a plan uses when the user gives nothing, each with where it comes from.

No formula module hides a constant: every efficiency, power share, lifetime or rate below is a
field of :class:`Assumptions` that a user can override (``Plan(..., assumptions=Assumptions(
gpu_lifetime="4 year"))``), and :data:`ASSUMPTION_SOURCES` says where each default comes from.
``Plan.explain()`` prints those sources beside the figures that use them.
"""

from typing import Annotated

from pydantic import Field

from mlcost.specs.base import (
    Bytes,
    CarbonMass,
    Duration,
    EnergyPrice,
    Model,
    Power,
    TokenRate,
)
from mlcost.units import Q_

Fraction = Annotated[float, Field(ge=0.0, le=1.0)]


class Assumptions(Model):
    """Planning defaults (see :data:`ASSUMPTION_SOURCES` for each one's source)."""

    gpu_idle_fraction: Fraction = 0.15
    host_power_per_gpu: Power = Q_(25, "W")
    measured_host_power: Power = Q_(125, "W")
    host_mmap_threshold: Bytes = Q_(32, "MiB")
    gpus_per_host: int = Field(default=8, gt=0)
    fallback_pue: float = Field(default=1.58, ge=1.0, le=5.0)
    hyperscale_pue: float = Field(default=1.10, ge=1.0, le=5.0)
    fallback_electricity_price: EnergyPrice = Q_(0.0806, "USD/kWh")
    gpu_lifetime: Duration = Q_(6, "year")
    gpu_use_rate: Fraction = 0.85
    embodied_carbon_per_gpu: CarbonMass = Q_(150, "kgCO2e")
    embodied_carbon_per_server: CarbonMass = Q_(2500, "kgCO2e")
    storage_access_factor: Fraction = 0.1
    loader_workers: int = Field(default=8, gt=0)
    tokenization_rate_per_core: TokenRate = Q_(500_000, "token/s")
    token_id_bytes: Bytes = Q_(8, "byte")
    stored_bytes_per_token: Bytes = Q_(4, "byte")
    prefetch_factor: int = Field(default=2, ge=0)
    far_from_optimal_factor: float = Field(default=3.0, gt=1.0)
    report_mode_factor: float = Field(default=3.0, gt=1.0)
    global_batch_tokens: int = Field(default=4 * 2**20, gt=0)
    global_batch_images: int = Field(default=256, gt=0)
    layout_tie_tolerance: float | None = Field(default=None, ge=0.0, lt=1.0)
    search_layout_knobs: bool = False
    # serving (mlcost.serving)
    quantization_group_size: int = Field(default=128, gt=0)
    kv_block_size: int = Field(default=16, gt=0)
    gpu_memory_utilization: float = Field(default=0.9, gt=0.0, le=1.0)
    serving_ttft_target: Duration = Q_(450, "ms")
    serving_tpot_target: Duration = Q_(40, "ms")


ASSUMPTION_SOURCES: dict[str, str] = {
    "gpu_idle_fraction": (
        "No vendor or peer-reviewed idle figure was found for A100/H100/V100 SXM; user-posted "
        "nvidia-smi idle readings are 12-23% of TDP, and training itself is costed at the full "
        "TDP by Meta (Llama 2 paper section 2.2.1, 400 W per A100) and BLOOM (Luccioni et al. "
        "2022, 400 W). 0.15 is an assumption to replace with your own nvidia-smi reading"
    ),
    "host_power_per_gpu": (
        "The textbook chapter's carbon example (W-23, L3728): 200 W of CPU/host power per host of "
        "8 GPUs, i.e. 25 W per GPU (Patterson et al. 2021, table 4, implies about 30 W: 330 W "
        "per V100 with the host's share vs 300 W TDP); a node spec's own power figure replaces it "
        "when a system is given (node maximum power minus the GPUs' TDP, an upper bound: a "
        "measured 8x H100 node peaked near 8.4 kW of its 10.2 kW rating, Latif et al. 2024)"
    ),
    "measured_host_power": (
        "The power of a CPU profiled by mlcost (mlcost calibrate without --base, or --trace of "
        "a CPU run), which has no datasheet TDP: 125 W, the processor base power of a desktop "
        "CPU such as Intel's Core i9-13900K (Intel ARK) and within the 65-360 W of AMD EPYC 9004 "
        "default TDPs (AMD product pages); an assumption to replace with the profile's tdp "
        "(e.g. from RAPL or the CPU's datasheet)"
    ),
    "host_mmap_threshold": (
        "glibc's malloc serves an allocation at or above its mmap threshold with fresh pages "
        "from mmap(2) and unmaps them on free(3), so every such allocation pays the page faults "
        "of first touch; the threshold is dynamic (it rises to the size of a freed mapped "
        "block) up to DEFAULT_MMAP_THRESHOLD_MAX, 32 MiB on 64-bit systems, so an allocation "
        "of 32 MiB or more is always mapped afresh (mallopt(3), M_MMAP_THRESHOLD, Linux "
        "man-pages 6.x; glibc malloc/malloc.c). Below it whether a freed block goes back to the "
        "system depends on the heap's state (M_TRIM_THRESHOLD, twice the dynamic threshold)"
    ),
    "gpus_per_host": "The textbook chapter, W-23 (GPUS_PER_HOST = 8); the DGX/HGX node size",
    "fallback_pue": (
        "Uptime Institute Global Data Center Survey 2023: average annual PUE 1.58 (used when the "
        "grid region gives no PUE and the user none)"
    ),
    "hyperscale_pue": (
        "Google, 2023 Environmental Report: fleet-wide trailing twelve-month average PUE of 1.10 "
        "for its data centres in 2022 (facility class 'hyperscale'; Patterson et al. 2021 used "
        "1.10-1.12 for Google's and 1.1 for Microsoft's)"
    ),
    "fallback_electricity_price": (
        "EIA average retail electricity price for US industrial consumers, 2023: 8.06 US cents "
        "per kWh (as charted by Statista, 2024-03-18); used when the grid region gives no price "
        "and the user none"
    ),
    "gpu_lifetime": (
        "Luccioni, Viguier and Ligozat 2022, 'Estimating the Carbon Footprint of BLOOM' (JMLR 24, "
        "2023), section 4.1 'Embodied emissions': hardware amortized over a 6-year life"
    ),
    "gpu_use_rate": (
        "Luccioni et al. 2022, section 4.1: an 85% use rate over that life; purchase price and "
        "embodied carbon are spread over lifetime x use rate busy hours"
    ),
    "embodied_carbon_per_gpu": (
        "Luccioni et al. 2022, section 4.1: about 150 kgCO2e per GPU (A100), the figure also "
        "used by the Cloud Carbon Footprint coefficients (GPU_MANUFACTURING_EMISSIONS); used "
        "when the accelerator spec has no embodied_carbon"
    ),
    "embodied_carbon_per_server": (
        "Luccioni et al. 2022, section 4.1: about 2,500 kgCO2e for the rest of a GPU server "
        "(an HPE server's life-cycle assessment), shared by its GPUs; summed with the GPUs' own "
        "embodied carbon as BLOOM's study does"
    ),
    "storage_access_factor": (
        "The textbook chapter, F-30 (L1466): random access reaches about 0.1 of sequential "
        "storage throughput (F_access)"
    ),
    "loader_workers": "The textbook chapter, W-08 (GPT-2 data pipeline): 8 loader workers",
    "tokenization_rate_per_core": (
        "The textbook chapter, W-08: 500,000 tokens/s per core; consistent with the tiktoken "
        "README's benchmark chart (GPT-2 BPE on 1 GB of text, one thread: HF tokenizers about "
        "1.7 MB/s, about 0.43 M tokens/s at 4 bytes per token; tiktoken about 6.4 MB/s)"
    ),
    "token_id_bytes": (
        "The textbook chapter, F-39: token ids copied to the GPU as int64 (8 bytes; PyTorch's "
        "default integer dtype)"
    ),
    "stored_bytes_per_token": (
        "Raw English text averages about 4 characters (UTF-8 bytes) per BPE token (OpenAI's "
        "tokenizer guide: 'one token generally corresponds to ~4 characters of text')"
    ),
    "prefetch_factor": "PyTorch DataLoader: prefetch_factor defaults to 2 batches per worker",
    "layout_tie_tolerance": (
        "Layouts whose predicted step times differ by less than the step-time band's resolution "
        "(its half-width, (high - low) / (high + low), mlcost.uncertainty; None: that) cannot be "
        "told apart by the published runs (docs/validation.md); Plan runs the one practitioners "
        "run: the fewest model-parallel dimensions (tensor, pipeline, context, expert, virtual "
        "stages), then Megatron-LM's defaults for what sources rarely publish (micro-batch 1, no "
        "recomputation, no TP overlap)"
    ),
    "search_layout_knobs": (
        "False: a plan without a layout holds the knobs run configurations rarely state at what "
        "the implementation runs when not told (mlcost.parallel.search.unstated_knobs: no "
        "interleaving and no TP overlap, Megatron-LM's argument defaults; Megatron-Core's "
        "micro-batch 1, its GPT-3 example) and searches the rest; none of the published runs "
        "measures the effect of those knobs, and letting the search choose them moved the "
        "Megatron-Core H100 rows by up to 17 points (benchmarks/search_gap.py, docs/"
        "validation.md). True: the search chooses them too"
    ),
    "far_from_optimal_factor": (
        "Warn when N differs from the compute-optimal N at the same FLOPs by more than this factor "
        "(Hoffmann et al. 2022, figure 3: the loss isoFLOP curves are flat within about a factor "
        "of 2-3 of the optimum)"
    ),
    "report_mode_factor": (
        "Report mode warns when the published GPU-hours and the plan's own prediction of the same "
        "run differ by more than this factor: published totals include what a plan does not "
        "model (restarts, evaluation, ablations; Llama 3 405B had 466 interruptions in 54 days, "
        "Dubey et al. 2024, section 3.3.4), but not a factor of 3: beyond it a typo in the "
        "GPU-hours, tokens or GPUs is likelier (issue 65)"
    ),
    "global_batch_tokens": (
        "Touvron et al. 2023, 'Llama 2: Open Foundation and Fine-Tuned Chat Models', section 2.2: "
        "'a global batch-size of 4M tokens' (4 x 2^20); GPT-3 175B used 3.2M (Brown et al. 2020, "
        "table 2.1). A plan without a layout or a global batch searches layouts for this many "
        "tokens per step, rounded up to a whole number of sequences per GPU"
    ),
    "global_batch_images": (
        "Goyal et al. 2017, 'Accurate, Large Minibatch SGD: Training ImageNet in 1 Hour', "
        "section 5: the ResNet-50 reference minibatch of 256 images (He et al. 2016); the "
        "default global batch of a conv net plan"
    ),
    "quantization_group_size": (
        "AWQ (Lin et al. 2024, section 5.1: 'group size of 128') and GPTQ checkpoints' usual "
        "group size: one FP16 scale and one zero point per 128 input channels"
    ),
    "kv_block_size": (
        "vLLM's default KV-cache block size of 16 tokens (vLLM engine arguments, --block-size; "
        "Kwon et al. 2023, PagedAttention, section 4.2)"
    ),
    "gpu_memory_utilization": (
        "vLLM's default --gpu-memory-utilization 0.9: the share of GPU memory the engine may "
        "use for weights, activations and the KV cache"
    ),
    "serving_ttft_target": (
        "MLPerf Inference v5.0, Llama 2 70B Interactive scenario: time to first token <= 450 ms "
        "(99th percentile), the interactive latency constraint of the benchmark; mlcost applies it "
        "to the mean: the default batch of ServePlan is the largest that meets it"
    ),
    "serving_tpot_target": (
        "MLPerf Inference v5.0, Llama 2 70B Interactive scenario: time per output token <= 40 ms "
        "(99th percentile, 25 tokens/s per user); the default batch of ServePlan is the largest "
        "that meets it"
    ),
}

#: The defaults themselves, every field at its default: what a plan, a system and the energy and
#: serving formulas use when given no assumptions (equal to ``Assumptions()``; a test holds the
#: two equal). Built without validation: pydantic validates the values given, never the
#: defaults (``validate_default`` is off), so this skips building the validator, about 2.6 ms
#: on the first ``Assumptions()`` of a process.
DEFAULT_ASSUMPTIONS = Assumptions.model_construct()

__all__ = ["ASSUMPTION_SOURCES", "DEFAULT_ASSUMPTIONS", "Assumptions"]
