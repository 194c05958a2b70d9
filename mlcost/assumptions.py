"""The defaults a plan uses when the user gives nothing, each with where it comes from.

No formula module hides a constant: every efficiency, power share, lifetime or rate below is a
field of :class:`Assumptions` that a user can override (``Plan(..., assumptions=Assumptions(
gpu_lifetime="4 year"))``), and :data:`ASSUMPTION_SOURCES` says where each default comes from.
``Plan.explain()`` prints those sources beside the figures that use them.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from mlcost.specs._base import Bytes, CarbonMass, Duration, Model, Power, TokenRate
from mlcost.units import Q_

Fraction = Annotated[float, Field(ge=0.0, le=1.0)]


class Assumptions(Model):
    """Planning defaults (see :data:`ASSUMPTION_SOURCES` for each one's source)."""

    gpu_idle_fraction: Fraction = 0.1
    host_power_per_gpu: Power = Q_(25, "W")
    gpus_per_host: int = Field(default=8, gt=0)
    fallback_pue: float = Field(default=1.58, ge=1.0, le=5.0)
    gpu_lifetime: Duration = Q_(5, "year")
    embodied_carbon_per_gpu: CarbonMass = Q_(150, "kgCO2e")
    storage_access_factor: Fraction = 0.1
    loader_workers: int = Field(default=8, gt=0)
    tokenization_rate_per_core: TokenRate = Q_(500_000, "token/s")
    token_id_bytes: Bytes = Q_(8, "byte")
    stored_bytes_per_token: Bytes = Q_(4, "byte")
    prefetch_factor: int = Field(default=2, ge=0)
    steady_use_utilization: Fraction = 1.0
    far_from_optimal_factor: float = Field(default=3.0, gt=1.0)


ASSUMPTION_SOURCES: dict[str, str] = {
    "gpu_idle_fraction": (
        "Idle draw as a share of TDP: H100 SXM5 idles near 70 W of 700 W and A100 SXM4 near "
        "50-60 W of 400 W in nvidia-smi readings (ML.ENERGY / Chung et al. 2024 report idle "
        "power of this order); an assumption to replace with a measurement of your GPUs"
    ),
    "host_power_per_gpu": (
        "The textbook chapter's carbon example (W-23, L3728): 200 W of CPU/host power per host of "
        "8 GPUs, i.e. 25 W per GPU; a DGX node spec's own power figure replaces it when a system "
        "is given (node max power minus the GPUs' TDP)"
    ),
    "gpus_per_host": "The textbook chapter, W-23 (GPUS_PER_HOST = 8); the DGX/HGX node size",
    "fallback_pue": (
        "Uptime Institute Global Data Center Survey 2023: average annual PUE 1.58 (used when the "
        "grid region gives no PUE and the user none)"
    ),
    "gpu_lifetime": (
        "Service life over which purchase price and embodied carbon are amortized; 5 years is a "
        "common depreciation schedule for data-centre servers (an assumption to override)"
    ),
    "embodied_carbon_per_gpu": (
        "Luccioni, Viguier and Ligozat 2022, 'Estimating the Carbon Footprint of BLOOM', section "
        "on embodied emissions: about 150 kgCO2e per GPU (A100), used when the accelerator spec "
        "has no figure"
    ),
    "storage_access_factor": (
        "The textbook chapter, F-30 (L1466): random access reaches about 0.1 of sequential "
        "storage throughput (F_access)"
    ),
    "loader_workers": "The textbook chapter, W-08 (GPT-2 data pipeline): 8 loader workers",
    "tokenization_rate_per_core": (
        "The textbook chapter, W-08: 500,000 tokens/s per core for a fast BPE tokenizer"
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
    "steady_use_utilization": (
        "Share of a month an owned cluster is busy, for the rent-vs-buy break-even in months "
        "(1.0: always busy, the most favourable case for buying)"
    ),
    "far_from_optimal_factor": (
        "Warn when N differs from the compute-optimal N at the same FLOPs by more than this factor "
        "(Hoffmann et al. 2022, figure 3: the loss isoFLOP curves are flat within about a factor "
        "of 2-3 of the optimum)"
    ),
}

__all__ = ["ASSUMPTION_SOURCES", "Assumptions"]
