"""Predictions against published measurements: every row of the validation set that ships with
mlcost (``mlcost/data/published.yaml``: real training runs and hardware measurements, each with
its source and FLOP convention), predicted with one configuration per family of rows.

Families and the one configuration each uses (never a constant per row):

* ``megatron-core-h100``: the Megatron-LM README's H100 table (Megatron-Core r0.8). GPT models
  as Megatron builds them by default (GELU MLP of ``4h``, LayerNorm, learned positions, biases,
  untied embeddings, dropout 0.1), BF16, the table's TP/PP/DP and global batch, micro-batch 1
  (not published; the table's batch is 4 x PP sequences per data-parallel replica), the
  distributed optimizer (ZeRO-1), sequence parallelism and TP communication overlap where TP >
  1, no recomputation, implementation ``megatron-core``, on DGX H100 nodes (the README names no
  interconnect). Compared in the README's convention: TFLOP/s per GPU with Megatron's
  ``num_floating_point_operations`` (full ``s^2`` attention, no recomputation term).
* ``llm-foundry``: the MosaicML MPT benchmark tables. MPT models as benchmarked (learned
  positions, biases, tied embeddings, exact GELU, no dropout), the row's GPUs, micro-batch,
  global batch and activation checkpointing, FSDP FULL_SHARD (ZeRO-3), BF16 (or FP8 with
  Transformer Engine), implementation ``fsdp``, on DGX H100 or DGX A100 nodes. Compared in
  tokens/s per GPU.
* ``korthikanti-a100``: Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
  Transformer Models"), Table 5 (seconds per iteration) and Figure 1 (memory per GPU), with the
  layouts Calculon validated them with (calculon-ai/calculon ``validation/seqsel``). GPT models
  as Megatron-LM built them in 2022 (as ``megatron-core-h100`` but with the word embedding
  shared with the output layer; vocabulary 51,200 assumed: the transcription gives none), FP16
  mixed precision, the row's TP/PP/interleaving, micro-batch and global batch, no data
  parallelism, no ZeRO, no TP overlap, full or selective recomputation with sequence
  parallelism, attention without FlashAttention (``eager``: it came later), implementation
  ``megatron-core`` (Megatron's fused kernels, fused Adam, vocabulary-parallel loss), on DGX
  A100 nodes (Selene). Compared in seconds per iteration and GiB per GPU, and Calculon's
  prediction of each row (its own fit, in-sample) beside mlcost's.
* hardware: matmul ceilings (MAMF), STREAM bandwidth, NCCL collectives, point-to-point and
  PCIe copies, each predicted from the catalog the way the model uses it. Rows whose measurement
  is an input of the catalog (a published ceiling the model is anchored on) say so.

Rows the model cannot predict from what the source gives (no configuration, or energy, which
:mod:`mlcost.energy` validates) are listed with the reason.
"""

from __future__ import annotations

import math
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np

from mlcost.checks import counts
from mlcost.comms import collective_time, placement
from mlcost.comms.placement import collective_seconds
from mlcost.energy import report_energy
from mlcost.flops import narayanan_flops
from mlcost.layout import Layout
from mlcost.memory import MemoryTerm, memory_breakdown
from mlcost.memory.terms import MODEL_STATES
from mlcost.parallel.step import MultiGpuStep, multi_gpu_step_time
from mlcost.records import Record, field, replace
from mlcost.results import Figure, Result
from mlcost.roofline import Ceilings
from mlcost.specs import Node, TransformerSpec, default_catalog
from mlcost.specs.hardware import Attached
from mlcost.systems import SystemLike, system
from mlcost.uncertainty import (
    BAND_TAIL,
    POOLED,
    Band,
    Calibration,
    band_from_errors,
    calibration_factor,
    corrected_ratios,
    leave_one_family_out,
)
from mlcost.units import Q_, in_unit
from mlcost.workload import TrainingConfig

if TYPE_CHECKING:
    import pandas as pd

TRAINING_FAMILIES = ("megatron-core-h100", "llm-foundry", "korthikanti-a100")
SOURCE = "mlcost/data/published.yaml (the validation set; each row's source in the file)"


@cache
def published_cases() -> tuple[dict[str, Any], ...]:
    """The rows of the shipped validation set, as read from YAML."""
    import yaml  # on first need only

    text = resources.files("mlcost").joinpath("data/published.yaml").read_text()
    return tuple(yaml.safe_load(text)["cases"])


class Prediction(Record, frozen=True):
    """One row: what was measured, what mlcost predicts for it, and how."""

    id: str
    family: str
    quantity: str
    unit: str
    measured: float
    predicted: float | None
    anchor: bool = False
    note: str = ""
    calculon: float | None = None  # Calculon's prediction of the row, where it has one
    time: bool = False  # the quantity is a time (a too-fast prediction is below the measurement)
    uncorrected: float | None = None  # a training row: the prediction before the calibration
    implementation: str = ""  # a training row: the implementation profile it ran with

    @property
    def error(self) -> float | None:
        """``predicted / measured - 1`` in the row's own quantity."""
        if self.predicted is None or not self.measured:
            return None
        return self.predicted / self.measured - 1

    @property
    def speed_error(self) -> float | None:
        """The error as a throughput error, ``measured / predicted - 1`` for a time and
        :attr:`error` for a rate: positive when the prediction is too fast (what the band of
        :mod:`mlcost.uncertainty` is built from)."""
        if self.predicted is None or not self.measured:
            return None
        return self.measured / self.predicted - 1 if self.time else self.error

    @property
    def uncorrected_speed_error(self) -> float | None:
        """:attr:`speed_error` of the uncorrected prediction (a training row's roofline model
        before its implementation's calibration)."""
        if self.uncorrected is None or not self.measured:
            return None
        if self.time:
            return self.measured / self.uncorrected - 1
        return self.uncorrected / self.measured - 1

    @property
    def calculon_error(self) -> float | None:
        """Calculon's ``predicted / measured - 1`` on the row, where it has one."""
        if self.calculon is None or not self.measured:
            return None
        return self.calculon / self.measured - 1


# ----- training runs ------------------------------------------------------------------------------
def megatron_gpt(
    hidden: int, layers: int, heads: int, vocab: int, sequence: int
) -> TransformerSpec:
    """A GPT as Megatron-LM builds it by default (see the module docstring)."""
    return TransformerSpec(
        name=f"megatron-gpt-h{hidden}-l{layers}",
        hidden_size=hidden, num_layers=layers, num_attention_heads=heads,
        ffn_hidden_size=4 * hidden, activation="gelu", norm="layernorm", vocab_size=vocab,
        max_position_embeddings=sequence, position_encoding="learned", qkv_bias=True,
        attn_out_bias=True, mlp_bias=True, hidden_dropout=0.1, attention_dropout=0.1,
    )  # fmt: skip


def megatron_flops(batch: int, sequence: int, layers: int, hidden: int, vocab: int) -> float:
    """Megatron-LM ``num_floating_point_operations`` (megatron/training/training.py at commit
    937571cf) for a GELU MHA model, in FLOPs per iteration. It is Narayanan et al. 2021 eq. (3)
    without recomputation, ``72·B·s·L·h²·(1 + s/(6h) + V/(12·L·h))``:
    :func:`mlcost.flops.narayanan_flops`."""
    for value, name in ((batch, "batch"), (sequence, "sequence"), (layers, "layers"),
                        (hidden, "hidden"), (vocab, "vocab")):  # fmt: skip
        counts(value, name)
    flops = narayanan_flops(batch, sequence, layers, hidden, vocab, recompute=False)
    return float(flops.magnitude)


class PublishedRun(Record, frozen=True):
    """A published training run as its family's one configuration states it: the model, the
    training configuration, the published layout, the system it ran on and the implementation
    profile (what :func:`training_runs` gives for each training row)."""

    id: str
    model: TransformerSpec
    config: TrainingConfig
    layout: Layout
    system: str
    implementation: str

    def step(self) -> MultiGpuStep:
        """The predicted step of this run."""
        return multi_gpu_step_time(
            self.model, self.config, self.system, self.layout, implementation=self.implementation
        )


def megatron_layout(gpus: int, tp: int, pp: int, global_batch: int) -> Layout:
    """The ``megatron-core-h100`` family's layout (module docstring): the published degrees and
    batch, micro-batch 1, ZeRO-1, sequence parallelism and TP overlap where ``tp > 1``."""
    return Layout(
        dp=gpus // (tp * pp), tp=tp, pp=pp, micro_batch_size=1, global_batch_size=global_batch,
        zero_stage=1, sequence_parallel=tp > 1, tp_overlap=tp > 1,
    )  # fmt: skip


def megatron_step(
    gpt: tuple[int, int, int, int, int],
    global_batch: int,
    gpus: int,
    tp: int,
    pp: int,
    target: SystemLike = "dgx-h100",
) -> tuple[Layout, MultiGpuStep, float]:
    """The family's one configuration for a GPT ``(hidden, layers, heads, vocab, sequence)``:
    its layout, predicted step and achieved FLOP/s per GPU in Megatron's convention, on
    ``target`` (the family's DGX H100; another system for what-if diagnostics)."""
    h, layers, heads, vocab, seq = gpt
    layout = megatron_layout(gpus, tp, pp, global_batch)
    step = multi_gpu_step_time(
        megatron_gpt(h, layers, heads, vocab, seq), TrainingConfig(sequence_length=seq),
        target, layout, implementation="megatron-core",
    )  # fmt: skip
    seconds = in_unit(step.total, "s")
    return layout, step, megatron_flops(global_batch, seq, layers, h, vocab) / seconds / gpus


def _uncorrected(step: MultiGpuStep, value: float) -> float:
    """A rate ``value`` (proportional to 1 / step time) before the step's calibration."""
    return value * in_unit(step.total, "s") / in_unit(step.uncorrected_total, "s")


def _megatron(case: dict[str, Any]) -> Prediction:
    c = case["conditions"]
    gpt = (c["hidden"], c["layers"], c["heads"], c["vocab"], c["seq"])
    layout, step, rate = megatron_step(gpt, c["global_batch"], c["gpus"], c["TP"], c["PP"])
    peak = default_catalog().accelerator("h100-sxm5-80gb").peak("bf16").to("flop/s").magnitude
    seconds = in_unit(step.total, "s")
    return Prediction(
        case["id"], "megatron-core-h100", "TFLOP/s per GPU (Megatron's formula)",
        "TFLOP/s", float(case["value"]), rate / 1e12,
        note=f"{layout.describe()}, step {seconds:.3g} s, {rate / peak:.1%} of the BF16 peak",
        uncorrected=_uncorrected(step, rate / 1e12), implementation="megatron-core",
    )  # fmt: skip


#: MPT sizes as benchmarked: d_model, heads, layers (llm-foundry yamls/pretrain/mpt-*.yaml).
MPT = {"125m": (768, 12, 12), "3b": (2560, 20, 32), "7b": (4096, 32, 32),
       "13b": (5120, 40, 40), "70b": (8192, 64, 80)}  # fmt: skip
#: The catalog node each llm-foundry table ran on (H100 interconnect not stated: DGX H100 assumed;
#: A100 "1600 Gbps node-node interconnect (RoCE)" = 8 x 200 Gbit/s, as DGX A100's 8 x HDR).
MPT_NODES = {"H100": "dgx-h100", "A100 80GB": "dgx-a100", "A100 40GB": "dgx-a100-320gb"}


def mpt(size: str, sequence: int) -> TransformerSpec:
    """An MPT model as benchmarked (see the module docstring)."""
    d, heads, layers = MPT[size]
    return TransformerSpec(
        name=f"mpt-{size}", hidden_size=d, num_layers=layers, num_attention_heads=heads,
        ffn_hidden_size=4 * d, activation="gelu", norm="layernorm", vocab_size=50368,
        max_position_embeddings=sequence, position_encoding="learned", qkv_bias=True,
        attn_out_bias=True, mlp_bias=True, tie_word_embeddings=True,
    )  # fmt: skip


def _llm_foundry_run(case: dict[str, Any]) -> PublishedRun:
    """An llm-foundry row's run (module docstring)."""
    c = case["conditions"]
    seq = c["seq"]
    layout = Layout(
        dp=c["gpus"], micro_batch_size=c["micro_batch"], global_batch_size=c["global_batch"],
        zero_stage=3,
        recompute="full" if str(c["activation_checkpointing"]) == "True" else "none",
    )  # fmt: skip
    config = TrainingConfig(
        sequence_length=seq, precision="fp8" if "FP8" in c["gpu"] else "bf16-mixed"
    )
    node = next(v for k, v in MPT_NODES.items() if c["gpu"].startswith(k))
    model = mpt(case["id"].split(".")[-2], seq)
    return PublishedRun(case["id"], model, config, layout, node, "fsdp")


def _llm_foundry(case: dict[str, Any]) -> Prediction:
    c = case["conditions"]
    run = _llm_foundry_run(case)
    model, config, layout, node = run.model, run.config, run.layout, run.system
    seq, gpus, gb = c["seq"], c["gpus"], c["global_batch"]
    step = run.step()
    seconds = in_unit(step.total, "s")
    note = f"{node}, {layout.describe()}, {config.precision}, step {seconds:.3g} s"
    if model.parameter_count != c["params"]:
        note += f"; parameters {model.parameter_count:,} vs the table's {c['params']:,}"
    rate = gb * seq / seconds / gpus
    return Prediction(
        case["id"], "llm-foundry", "tokens/s per GPU", "tokens/s",
        float(case["value"]["tokens_per_s_per_gpu"]), rate, note=note,
        uncorrected=_uncorrected(step, rate), implementation="fsdp",
    )  # fmt: skip


#: The strong-scaling curve of the Megatron-LM README: the 177B GPT of its table (h, layers,
#: heads, vocabulary, sequence), batch 1152, TP 8 and PP 6 (inferred from the table's 177B row:
#: the text gives no degrees), at 96 and 4608 GPUs.
class StrongScaling(Record, frozen=True):
    """The strong-scaling runs' model ``(h, layers, heads, vocabulary, sequence)``, batch and
    model-parallel degrees."""

    gpt: tuple[int, int, int, int, int]
    batch: int
    tp: int
    pp: int


STRONG_SCALING = StrongScaling((12288, 96, 96, 131072, 4096), 1152, 8, 6)
STRONG_SCALING_POINTS = ((96, "MFU_at_96_gpus_pct"), (4608, "MFU_at_4608_gpus_pct"))


def _strong_scaling(case: dict[str, Any]) -> list[Prediction]:
    """The 177B model of the README table (:data:`STRONG_SCALING`) at 96 and 4608 GPUs: MFU in
    Megatron's convention."""
    peak = default_catalog().accelerator("h100-sxm5-80gb").peak("bf16").to("flop/s").magnitude
    out = []
    g = STRONG_SCALING
    for gpus, key in STRONG_SCALING_POINTS:
        layout, step, rate = megatron_step(g.gpt, g.batch, gpus, g.tp, g.pp)
        out.append(
            Prediction(
                f"{case['id']}.{gpus}", "megatron-core-h100", f"MFU at {gpus} GPUs", "%",
                float(case["value"][key]), 100 * rate / peak,
                note=f"{layout.describe()} (TP8 PP6 inferred from the 177B row)",
                uncorrected=_uncorrected(step, 100 * rate / peak),
                implementation="megatron-core",
            )
        )  # fmt: skip
    return out


def korthikanti_layout(conditions: dict[str, Any]) -> Layout:
    """The layout of a Korthikanti et al. 2022 row (Table 5 or Figure 1) as Calculon validated
    it: the row's degrees, interleaving, batch, recomputation and sequence parallelism."""
    c = conditions
    recompute = str(c["recompute"])
    return Layout(
        dp=c["DP"], tp=c["TP"], pp=c["PP"], virtual_stages=c["virtual_stages"],
        micro_batch_size=c["micro_batch"], global_batch_size=c["global_batch"],
        sequence_parallel=bool(c["sequence_parallel"]),
        recompute="selective" if recompute.startswith("selective") else recompute,
    )  # fmt: skip


#: The vocabulary of the Korthikanti et al. 2022 models: Megatron's padded GPT-2 vocabulary
#: (50,257 padded to a multiple of 128 x 8); the transcription gives none (an assumption).
KORTHIKANTI_VOCABULARY = 51200
#: Their configuration (module docstring): FP16 mixed precision, attention without FlashAttention.
KORTHIKANTI_CONFIG = {"precision": "fp16-mixed", "attention": "eager"}


def korthikanti_run(
    conditions: dict[str, Any],
) -> tuple[TransformerSpec, TrainingConfig, Layout]:
    """The model, configuration and layout of a Korthikanti et al. 2022 row (module docstring)."""
    c = conditions
    gpt = megatron_gpt(c["hidden"], c["layers"], c["heads"], KORTHIKANTI_VOCABULARY, c["seq"])
    # Megatron-LM in 2022 shared the word embedding with the output layer (no
    # --untie-embeddings-and-output-weights yet: megatron/model/gpt_model.py, v3.0).
    model = gpt.model_copy(update={"tie_word_embeddings": True})
    config = TrainingConfig(sequence_length=c["seq"], **KORTHIKANTI_CONFIG)
    return model, config, korthikanti_layout(c)


def _korthikanti_step(case: dict[str, Any]) -> Prediction:
    model, config, layout = korthikanti_run(case["conditions"])
    run = PublishedRun(case["id"], model, config, layout, "dgx-a100", "megatron-core")
    step = run.step()
    return Prediction(
        case["id"], "korthikanti-a100", "seconds per iteration", "s", float(case["value"]),
        in_unit(step.total, "s"),
        note=f"{layout.describe()}, fp16-mixed, eager attention, DGX A100",
        calculon=float(case["calculon"]["value"]), time=True,
        uncorrected=in_unit(step.uncorrected_total, "s"), implementation="megatron-core",
    )  # fmt: skip


def _korthikanti_memory(case: dict[str, Any]) -> list[Prediction]:
    """Figure 1's two bars of a row: weights + gradients + optimizer states, and the
    activations of the transformer layers on the most loaded GPU (the first stage)."""
    model, config, layout = korthikanti_run(case["conditions"])
    breakdown = memory_breakdown(
        model, config, "a100-sxm4-80gb", layout, implementation="megatron-core"
    )
    states = sum(in_unit(breakdown.term(term), "GiB") for term in MODEL_STATES)
    activations = in_unit(breakdown.term(MemoryTerm.ACTIVATIONS), "GiB")
    value, calculon = case["value"], case["calculon"]["value"]
    note = f"{layout.describe()}, fp16-mixed, the pytorch memory profile under megatron-core"
    return [
        Prediction(
            f"{case['id']}.states", "korthikanti-memory",
            "weights + gradients + optimizer states per GPU", "GiB",
            float(value["params_grads_optimizer_GiB"]), float(states), note=note,
            calculon=float(calculon["params_grads_optimizer_GiB"]),
        ),
        Prediction(
            f"{case['id']}.activations", "korthikanti-memory",
            "activations of the layers per GPU", "GiB", float(value["activations_GiB"]),
            float(activations), note=note, calculon=float(calculon["activations_GiB"]),
        ),
    ]  # fmt: skip


# ----- hardware -----------------------------------------------------------------------------------
#: Catalog accelerator of each measured GPU name (absent: not in the catalog).
GPUS = {"A100 SXM": "a100-sxm4-80gb", "A100 PCIe": "a100-pcie-80gb", "H100 SXM": "h100-sxm5-80gb",
        "H200": "h200-sxm-141gb", "V100": "v100-pcie-16gb", "A100 40GB": "a100-sxm4-40gb",
        "A100 80GB": "a100-sxm4-80gb", "H100 PCIe": "h100-pcie-80gb"}  # fmt: skip


def _gpu_of(text: str) -> str | None:
    for key, name in sorted(GPUS.items(), key=lambda kv: -len(kv[0])):
        if text.startswith(key):
            return name
    return None


def _mamf(case: dict[str, Any]) -> Prediction:
    fmt = "fp8" if "FP8" in case["quantity"] else "bf16"
    by_id = {"h100": "h100-sxm5-80gb", "h200": "h200-sxm-141gb"}
    name = (
        _gpu_of(case["conditions"].get("gpu", ""))
        if fmt == "bf16"
        else by_id.get(case["id"].split(".")[-1])
    )
    predicted = None
    if name is not None:
        gpu = default_catalog().accelerator(name)
        ceilings = Ceilings.from_accelerator(gpu, fmt)
        shapes = 256 * np.arange(1, 81)  # a shape sweep as the measurement did: up to 20480
        m, n = np.meshgrid(shapes, shapes, indexing="ij")
        best = float(np.max(ceilings.compute_efficiency * ceilings.gemm_wave_efficiency(m, n)))
        predicted = best * in_unit(ceilings.peak, "TFLOP/s")
    return Prediction(
        case["id"], "hardware", case["quantity"], "TFLOP/s", float(case["value"]), predicted,
        anchor=True, note=f"{name or 'not in the catalog'}; the catalog's ceiling is this MAMF",
    )  # fmt: skip


def _stream(case: dict[str, Any]) -> Prediction:
    text = case["id"].split(".")[-1]
    names = {"v100": "v100-pcie-16gb", "a100_40gb": "a100-sxm4-40gb",
             "a100_80gb": "a100-sxm4-80gb", "h100_pcie": "h100-pcie-80gb"}  # fmt: skip
    name = names.get(text)
    anchor = name is not None and case["id"].startswith("meas.stream.")
    measured = case["value"]["triad"] if isinstance(case["value"], dict) else case["value"]
    predicted = None
    if name is not None:
        gpu = default_catalog().accelerator(name)
        ceilings = Ceilings.from_accelerator(gpu, "bf16" if "bf16" in gpu.formats else "fp16")
        predicted = (ceilings.bandwidth * ceilings.memory_efficiency).to("GB/s").magnitude
    return Prediction(
        case["id"], "hardware", "achievable memory bandwidth (STREAM triad)", "GB/s",
        float(measured), predicted, anchor=anchor,
        note=f"{name or 'not in the catalog'}; the catalog's bandwidth is "
        + ("this measurement" if anchor else "its STREAM triad"),
    )  # fmt: skip


def _busbw(target: Any, ranks: int, algorithm: str = "auto", size: float = 8 * 2**30) -> float:
    result = collective_time(target, "all-reduce", Q_(size, "byte"), ranks=ranks,
                             algorithm=algorithm)  # fmt: skip
    return float(in_unit(result.bus_bandwidth, "GB/s"))


def _nccl(case: dict[str, Any]) -> list[Prediction]:
    cid, value = case["id"], case["value"]
    rows: list[tuple[str, str, float, float]] = []
    if cid.endswith("8xa100"):
        rows.append((cid, "all-reduce busbw, 8x A100", value, _busbw("dgx-a100", 8)))
    elif cid.endswith("8xh100"):
        rows.append(
            (
                f"{cid}.ring",
                "ring all-reduce busbw, 8x H100",
                value["ring_or_non_allreduce_busbw"],
                _busbw("dgx-h100", 8, "ring"),
            )
        )
        rows.append((f"{cid}.nvls", "NVLS all-reduce busbw, 8x H100",
                     value["nvls_allreduce_busbw"], _busbw("dgx-h100", 8)))  # fmt: skip
    elif cid.endswith("h200_gpu_sweep"):
        rows.append((f"{cid}.4", "all-reduce busbw, 4x H200 (ring)", value["4_gpus_ring"],
                     _busbw("dgx-h200", 4)))  # fmt: skip
        for n in (5, 6, 7, 8):
            rows.append((f"{cid}.{n}", f"all-reduce busbw, {n}x H200 (NVLS)",
                         value[f"{n}_nvls"], _busbw("dgx-h200", n)))  # fmt: skip
        rows.append((f"{cid}.off", "all-reduce busbw, 8x H200, NVLS off",
                     value["8_nvls_off"], _busbw("dgx-h200", 8, "ring")))  # fmt: skip
    anchors = {f"{cid}.ring", f"{cid}.nvls"} if cid.endswith("8xh100") else {cid}
    fitted = (
        "the link's achievable fractions are fitted to nccl-tests issues #149 (A100) and #212 "
        "(H100)"
    )
    nvls = (
        "NVLS: S(n+1)/n per GPU through the switch ports, their rate from nccl-tests issue "
        "#212's 8x H100 algbw"
    )
    return [
        Prediction(i, "hardware", q, "GB/s", float(m), p, anchor=i in anchors or
                   cid.endswith("8xa100"), note=nvls if "(NVLS)" in q else fitted)
        for i, q, m, p in rows
    ]  # fmt: skip


def _p2p(case: dict[str, Any]) -> Prediction:
    target = "dgx-h200" if "h200" in case["id"] else "dgx-h100"
    resolved = system(target)
    where = placement(resolved, 2, 1)
    size = 4 * 2**30
    seconds = collective_seconds(resolved, "point-to-point", size, where)
    return Prediction(
        case["id"], "hardware", "NVLink copy bandwidth, one direction", "GB/s",
        float(case["value"]["unidirectional"]), float(size / np.asarray(seconds) / 1e9),
        note=f"{target}: point-to-point over NVLink at the ring's achievable fraction",
    )  # fmt: skip


def _pcie(case: dict[str, Any]) -> list[Prediction]:
    links = {"H200_gen5x16_H2D_CE": "pcie-5-x16", "A100_gen4x16_peak": "pcie-4-x16",
             "V100_gen3x16_ingress": "pcie-3-x16"}  # fmt: skip
    out = []
    for key, link in links.items():
        model = system("h100-sxm5-80gb").host_link
        from_catalog = default_catalog().link(link)
        rate = in_unit(from_catalog.per_direction, "GB/s")
        fraction = model.efficiency if model is not None else 1.0
        out.append(
            Prediction(
                f"{case['id']}.{key}", "hardware", f"host-to-device copy ({key})", "GB/s",
                float(case["value"][key]), rate * fraction,
                note=f"{link} at the PCIe achievable fraction {fraction:.3f}",
            )
        )  # fmt: skip
    return out


def _internode(case: dict[str, Any]) -> Prediction:
    node = Node(
        name="a100-40gb-4x-hdr", accelerator="a100-sxm4-40gb", accelerators_per_node=8,
        intra_node_link="nvlink-3", nics=(Attached(link="infiniband-hdr", count=4),),
    )  # fmt: skip
    busbw = _busbw(system(node, nodes=3), 24, size=128 * 2**20)
    return Prediction(
        case["id"], "hardware", "all-reduce busbw, 3 nodes x 8 A100, 4x HDR per node", "GB/s",
        float(case["value"]["avg_busbw"]), busbw,
        note="128 MB messages; measured average over 8 B-128 MB (peak 96)",
    )  # fmt: skip


def _patterson(case: dict[str, Any]) -> list[Prediction]:
    """Report mode (:func:`mlcost.energy.report_energy`, system-per-accelerator convention) on
    the row's published inputs: chips x days x 24 h of measured system power per chip, its PUE
    and its grid intensity."""
    c, value = case["conditions"], case["value"]
    report = report_energy(
        float(c["chips"]) * float(c["days"]) * 24, f"{c['avg_system_power_W_per_chip']} W",
        pue=float(c["PUE"]), intensity=f"{float(c['kgCO2e_per_kWh']) * 1000} gCO2e/kWh",
        accounting="system-per-accelerator",
    )  # fmt: skip
    note = (
        f"{c['chips']} x {c['device']} x {c['days']} d x {c['avg_system_power_W_per_chip']} W x "
        f"PUE {c['PUE']}, {c['kgCO2e_per_kWh']} kgCO2e/kWh (system-per-accelerator)"
    )
    return [
        Prediction(
            f"{case['id']}.energy", "energy-reports", "training energy", "MWh",
            float(value["energy_MWh"]), float(in_unit(report.energy, "MWh")), note=note,
        ),
        Prediction(
            f"{case['id']}.co2e", "energy-reports", "training CO2e", "tCO2e",
            float(value["tCO2e"]), float(in_unit(report.location_carbon, "tCO2e")), note=note,
        ),
    ]  # fmt: skip


def _bloom(case: dict[str, Any]) -> list[Prediction]:
    """BLOOM's life-cycle view in report mode: dynamic energy from GPU-hours x TDP, the published
    idle energy, embodied carbon from the per-device figures over lifetime x use rate
    (:func:`mlcost.energy.report_energy`, Luccioni et al. 2022 section 4)."""
    c, value = case["conditions"], case["value"]
    report = report_energy(
        float(c["gpu_hours"]), f"{c['gpu_tdp_W']} W", pue=float(c["PUE"]),
        intensity=f"{c['gCO2e_per_kWh']} gCO2e/kWh", accounting="gpu-tdp",
        idle_energy=f"{c['idle_energy_kWh']} kWh", gpus_per_server=int(c["gpus_per_server"]),
        embodied_per_gpu=f"{c['embodied_per_gpu_kgCO2e']} kgCO2e",
        embodied_per_server=f"{c['embodied_per_server_kgCO2e']} kgCO2e",
    )  # fmt: skip
    note = (
        f"{c['gpu_hours']:,} GPU-h x {c['gpu_tdp_W']} W + {c['idle_energy_kWh']:,} kWh idle at "
        f"{c['gCO2e_per_kWh']} g/kWh; embodied {c['embodied_per_gpu_kgCO2e']} kg/GPU + "
        f"{c['embodied_per_server_kgCO2e']} kg/server over {c['lifetime_years']} y x "
        f"{c['use_rate']}"
    )
    intensity = Q_(float(c["gCO2e_per_kWh"]), "gCO2e/kWh")
    embodied = report.embodied_carbon
    rows = [
        ("dynamic-energy", "dynamic energy", "kWh", value["dynamic_kWh"],
         in_unit(report.dynamic_energy, "kWh")),
        ("dynamic-co2e", "dynamic CO2e", "tCO2e", value["dynamic_tCO2e"],
         (report.dynamic_energy * intensity).to("tCO2e").magnitude),
        ("embodied-co2e", "embodied CO2e", "tCO2e", value["embodied_tCO2e"],
         math.nan if embodied is None else in_unit(embodied, "tCO2e")),
        ("total-co2e", "life-cycle CO2e", "tCO2e", value["tCO2e"],
         in_unit(report.total_carbon, "tCO2e")),
    ]  # fmt: skip
    return [
        Prediction(
            f"{case['id']}.{key}",
            "energy-reports",
            quantity,
            unit,
            float(measured),
            float(predicted),
            note=note,
        )
        for key, quantity, unit, measured, predicted in rows
    ]


def _not_predicted(case: dict[str, Any], reason: str) -> Prediction:
    value = case["value"]
    measured = float(value) if isinstance(value, (int, float)) else math.nan
    return Prediction(case["id"], case["group"], case["quantity"], str(case.get("unit", "")),
                      measured, None, note=reason)  # fmt: skip


def training_runs() -> list[PublishedRun]:
    """Every training run of the validation set's training families, as its family's one
    configuration states it (the runs behind the step-time rows; the ones whose sources say
    they ran, so each must fit its GPUs)."""
    runs = []
    for case in published_cases():
        cid, c = case["id"], case.get("conditions", {})
        if cid.startswith("run.megatron_h100.") and "strong" not in cid:
            gpt = megatron_gpt(c["hidden"], c["layers"], c["heads"], c["vocab"], c["seq"])
            layout = megatron_layout(c["gpus"], c["TP"], c["PP"], c["global_batch"])
            config = TrainingConfig(sequence_length=c["seq"])
            runs.append(PublishedRun(cid, gpt, config, layout, "dgx-h100", "megatron-core"))
        elif cid == "run.megatron_h100.gpt3_strong_scaling":
            g = STRONG_SCALING
            gpt = megatron_gpt(*g.gpt)
            config = TrainingConfig(sequence_length=g.gpt[-1])
            for gpus, _ in STRONG_SCALING_POINTS:
                layout = megatron_layout(gpus, g.tp, g.pp, g.batch)
                runs.append(
                    PublishedRun(f"{cid}.{gpus}", gpt, config, layout, "dgx-h100", "megatron-core")
                )
        elif cid.startswith("run.llmfoundry."):
            runs.append(_llm_foundry_run(case))
        elif cid.startswith("run.korthikanti.") and cid != "run.korthikanti.530b":
            model, config, layout = korthikanti_run(c)
            runs.append(PublishedRun(cid, model, config, layout, "dgx-a100", "megatron-core"))
    return runs


def predict_case(case: dict[str, Any]) -> list[Prediction]:
    """mlcost's predictions for one row of the validation set (module docstring)."""
    cid = case["id"]
    if cid.startswith("run.megatron_h100.") and "strong" not in cid:
        return [_megatron(case)]
    if cid == "run.megatron_h100.gpt3_strong_scaling":
        return _strong_scaling(case)
    if cid.startswith("run.llmfoundry."):
        return [_llm_foundry(case)]
    if cid.startswith("meas.mamf."):
        return [_mamf(case)]
    if cid.startswith(("meas.stream.", "meas.memcpy.")):
        return [_stream(case)]
    if cid.startswith("meas.nccl.allreduce"):
        return _nccl(case)
    if cid.startswith("meas.p2p."):
        return [_p2p(case)]
    if cid == "meas.pcie.h2d":
        return _pcie(case)
    if cid == "meas.internode.a100_hdr":
        return [_internode(case)]
    if cid.startswith("energy.patterson."):
        return _patterson(case)
    if cid == "energy.bloom.life-cycle":
        return _bloom(case)
    if cid.startswith("energy."):
        return [
            _not_predicted(
                case,
                "the card publishes GPU-hours and 700 W but neither its PUE nor its grid "
                "intensity (implied 0.411-0.416 tCO2e per MWh of TDP energy); "
                "tests/test_energy_reports.py checks each row against the card's total",
            )
        ]
    if cid.startswith("run.korthikanti.") and cid != "run.korthikanti.530b":
        return [_korthikanti_step(case)]
    if cid.startswith("mem.korthikanti."):
        return _korthikanti_memory(case)
    if cid.startswith(("run.megatron_mfu_hfu", "run.korthikanti")):
        return [_not_predicted(case, "the source gives no model configuration or layout")]
    return [_not_predicted(case, "a formula reference, not a measurement to predict")]


class PublishedValidation(Record, Result, frozen=True):
    """Every row of the validation set with mlcost's prediction and the error, and the median
    absolute error per family."""

    rows: tuple[Prediction, ...]
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def frame(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "id": r.id, "family": r.family, "quantity": r.quantity, "unit": r.unit,
                    "measured": r.measured, "predicted": r.predicted, "error": r.error,
                    "anchor": r.anchor, "note": r.note,
                }
                for r in self.rows
            ]
        )  # fmt: skip

    def errors(self, family: str, *, anchors: bool = False) -> np.ndarray:
        """The errors of a family's predicted rows as throughput errors (:attr:`Prediction.
        speed_error`: ``predicted / measured - 1`` of a rate, ``measured / predicted - 1`` of a
        time; the rows the catalog is anchored on only with ``anchors``)."""
        values = [
            r.speed_error
            for r in self.rows
            if r.family == family and r.error is not None and (anchors or not r.anchor)
        ]
        return np.asarray(values, dtype=np.float64)

    def title(self) -> str:
        return "mlcost against published measurements (one configuration per family)"

    def figures(self) -> list[Figure]:
        out = []
        known = (*TRAINING_FAMILIES, "korthikanti-memory", "hardware", "energy-reports")
        for family in dict.fromkeys((*known, *(r.family for r in self.rows))):
            errors = self.errors(family)
            anchored = self.errors(family, anchors=True).size - errors.size
            if errors.size == 0:
                continue
            median = 100 * float(np.median(np.abs(errors)))
            worst = 100 * float(np.max(np.abs(errors)))
            note = f"; {anchored} anchor rows (catalog inputs) left out" if anchored else ""
            out.append(
                Figure(
                    f"median |error|, {family}", Q_(median, "percent"),
                    "median over the rows of |predicted / measured - 1|",
                    f"{errors.size} rows, worst {worst:.1f} %{note}", SOURCE,
                )
            )  # fmt: skip
        return out

    def to_frame(self) -> pd.DataFrame:
        return self.frame

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "rows": self.frame.replace({np.nan: None}).to_dict("records")}

    def plot(self, ax: Any = None) -> Any:
        """Predicted against measured, per family (:func:`mlcost.plot.validation`)."""
        from mlcost import plot

        return plot.validation(self, ax=ax)


def training_ratios(result: PublishedValidation) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per predicted training-run row of ``result``: measured / uncorrected predicted step time,
    its implementation profile and its family."""
    rows = [
        r
        for r in result.rows
        if r.family in TRAINING_FAMILIES and r.uncorrected_speed_error is not None
    ]
    ratios = np.array([1.0 + (r.uncorrected_speed_error or 0.0) for r in rows])
    return ratios, np.array([r.implementation for r in rows]), np.array([r.family for r in rows])


def training_calibrations(result: PublishedValidation) -> dict[str, Calibration]:
    """Each implementation profile's correction factor (:func:`mlcost.uncertainty.
    calibration_factor`) from the uncorrected training-run rows of ``result``."""
    ratios, profiles, families = training_ratios(result)
    out = {
        POOLED: Calibration(
            profile=" and ".join(sorted(set(profiles.tolist()))) + ", pooled",
            factor=calibration_factor(ratios),
            rows=int(ratios.size),
            derivation=f"median of measured / predicted step time over the {ratios.size} "
            f"training runs of the published validation set ({', '.join(TRAINING_FAMILIES)}), "
            "for an implementation profile without published runs of its own; leaving each "
            "family out of the fit in turn, the held-out family predicted so is within its band "
            "as often as with its own factor (mlcost validate --published, docs/validation.md)",
        )
    }
    for profile in sorted(set(profiles.tolist())):
        mine = profiles == profile
        names = ", ".join(sorted(set(families[mine].tolist())))
        out[profile] = Calibration(
            profile=profile, factor=calibration_factor(ratios[mine]), rows=int(mine.sum()),
            derivation=f"median of measured / predicted step time over the {int(mine.sum())} "
            f"training runs of the published validation set that ran {profile} ({names}; "
            "mlcost validate --published, docs/validation.md)",
        )  # fmt: skip
    return out


def training_band(result: PublishedValidation) -> Band:
    """The step-time band of :mod:`mlcost.uncertainty` from the training-run rows of ``result``,
    after each profile's correction factor, with its leave-one-family-out coverage."""
    ratios, profiles, families = training_ratios(result)
    corrected = corrected_ratios(ratios, profiles, np.ones(ratios.shape, dtype=bool))
    inside = leave_one_family_out(ratios, profiles, families, BAND_TAIL)
    band = band_from_errors(
        corrected - 1,
        f"{100 * BAND_TAIL:.0f}th-{100 * (1 - BAND_TAIL):.0f}th percentile of measured / "
        f"predicted step time over the {ratios.size} training-run rows "
        f"({', '.join(TRAINING_FAMILIES)}) of the published validation set after each "
        f"implementation's calibration; it holds {int(inside.sum())} of {inside.size} rows when "
        "each family is left out of the fit (mlcost validate --published; docs/validation.md)",
        tail=BAND_TAIL,
    )
    return replace(band, coverage=float(inside.mean()))


def validate_published() -> PublishedValidation:
    """Predict every row of the shipped validation set (module docstring)."""
    rows = tuple(p for case in published_cases() for p in predict_case(case))
    return PublishedValidation(rows=rows)


__all__ = [
    "MPT",
    "STRONG_SCALING",
    "TRAINING_FAMILIES",
    "Prediction",
    "PublishedRun",
    "PublishedValidation",
    "StrongScaling",
    "megatron_flops",
    "megatron_gpt",
    "megatron_layout",
    "megatron_step",
    "mpt",
    "predict_case",
    "published_cases",
    "training_band",
    "training_calibrations",
    "training_ratios",
    "training_runs",
    "validate_published",
]
