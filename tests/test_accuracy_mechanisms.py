"""The mechanisms behind the step-time predictions, pinned against outside oracles: published
ceilings (MAMF), nccl-tests' bus-bandwidth factors and NCCL's NVLS behaviour, hand-derived tile,
wave and depth counts, the FlashAttention papers' throughput, Transformer Engine's FP8 casts.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import mlcost
from mlcost import Q_, Layout, TrainingConfig
from mlcost.comms import collective_time
from mlcost.errors import MlcostError
from mlcost.implementation import attention_kernel_seconds, implementation
from mlcost.roofline import Ceilings
from mlcost.timing import step_time
from mlcost.workload import operators

H100, A100 = "h100-sxm5-80gb", "a100-sxm4-80gb"


# ----- GEMM ceilings ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("gpu", "fmt", "mamf"),
    [(H100, "bf16", 794.5), (H100, "fp8", 1402.6), (A100, "bf16", 271.2),
     ("h200-sxm-141gb", "fp8", 1453.4)],
)  # fmt: skip
def test_no_gemm_is_predicted_above_the_measured_best_shape(
    gpu: str, fmt: str, mamf: float
) -> None:
    # MAMF (Bekman, ml-engineering, brute-force shape search): the best any shape reached.
    ceilings = Ceilings.from_accelerator(mlcost.accelerator(gpu), fmt)
    sizes = np.asarray([64, 128, 512, 1000, 1536, 2048, 4096, 5120, 8192, 13312, 16384, 65536])
    m, n, k = np.meshgrid(sizes, sizes, sizes, indexing="ij")
    efficiency = (
        ceilings.compute_efficiency
        * ceilings.gemm_wave_efficiency(m, n)
        * ceilings.gemm_depth_efficiency(k)
    )
    best = float(np.max(efficiency)) * ceilings.peak.to("TFLOP/s").magnitude
    assert best <= mamf * (1 + 1e-9)


def test_wave_quantization_counted_by_hand() -> None:
    # H100: 132 SMs, 128 x 128 tiles. 2048 x 2048 -> 16 x 16 = 256 tiles -> 2 waves of 132 slots:
    # 256/264. The MAMF shape (2048 x 2048 x 13312) is that shape, so relative to it a
    # 4096 x 4096 output (1024 tiles, 8 waves, 1024/1056) is (1024/1056)/(256/264) = 1.0, and a
    # 128 x 128 output (one tile in one wave of 132 slots) 1/132 / (256/264).
    ceilings = Ceilings.from_accelerator(mlcost.accelerator(H100), "bf16")
    assert ceilings.wave_reference == pytest.approx(256 / 264, rel=1e-12)
    assert ceilings.gemm_wave_efficiency(4096, 4096) == pytest.approx(1.0, rel=1e-12)
    assert ceilings.gemm_wave_efficiency(128, 128) == pytest.approx((1 / 132) / (256 / 264))


def test_depth_overhead_scales_with_the_per_sm_rate() -> None:
    # K0 = 790 at FP8 on H800 (1978.9 TFLOP/s over 132 SMs): BF16 on H100 halves the per-SM rate
    # (395); A100 BF16 runs 312 TFLOP/s over 108 SMs: 790 x (312/108) / (1978.9/132) = 152.2.
    h100 = Ceilings.from_accelerator(mlcost.accelerator(H100), "bf16")
    a100 = Ceilings.from_accelerator(mlcost.accelerator(A100), "bf16")
    assert h100.k_overhead == pytest.approx(790 * 989.4 / 1978.9, rel=1e-3)
    assert a100.k_overhead == pytest.approx(790 * (312 / 108) / (1978.9 / 132), rel=1e-3)
    # Relative to the MAMF depth 13312: K = 2048 runs at (2048/2443)/(13312/13707) of it.
    expected = (2048 / (2048 + h100.k_overhead)) / (13312 / (13312 + h100.k_overhead))
    assert h100.gemm_depth_efficiency(2048) == pytest.approx(expected, rel=1e-12)


def _by_hand(m: int, n: int, k: int) -> float:
    """Wave x depth efficiency of an ``[m x k]·[k x n]`` pass on H100 BF16, counted by hand:
    128 x 128 tiles on 132 SMs, relative to the MAMF shape's 256/264 and never above it;
    ``K / (K + K0)`` relative to the MAMF depth 13312, K0 = 790 x 989.4 / 1978.9."""
    tiles = -(-m // 128) * -(-n // 128)
    waves = -(-tiles // 132)
    wave = min(m * n / (waves * 132 * 128 * 128) / (256 / 264), 1.0)
    k0 = 790 * 989.4 / 1978.9
    depth = min((k / (k + k0)) / (13312 / (13312 + k0)), 1.0)
    return wave * depth


@pytest.mark.parametrize(
    ("name", "row_parallel"),
    [("output projection", True), ("mlp up projection", False), ("mlp down projection", True)],
)
def test_a_tensor_parallel_rank_runs_its_gemms_at_the_shape_of_its_shard(
    name: str, row_parallel: bool
) -> None:
    # Megatron's 32B (h = 7168, 4h MLP, s = 4096, one sequence) on TP 8 (Shoeybi et al. 2019,
    # section 3): a column-parallel GEMM splits its n output features, a row-parallel one its k
    # input features. Its time is F / (peak x eta x wave x depth) for the forward [m x k]·[k x n],
    # input gradient [m x n]·[n x k] and weight gradient [k x m]·[m x n] passes, each of the
    # same F, so at TP 8 against TP 1 (F and eta unchanged) the time grows by the ratio of the
    # sums of 1 / (wave x depth) over the passes, at the shard's and at the whole GEMM's shape.
    from mlcost.operator_time import gemm_compute
    from mlcost.published import megatron_gpt

    model = megatron_gpt(7168, 2, 56, 131072, 4096)
    table = operators(model, TrainingConfig(sequence_length=4096), Layout(micro_batch_size=1))
    (op,) = [o for o in table.operators if o.name == name]
    assert op.row_parallel is row_parallel
    m, n, k = int(op.m), int(op.n), int(op.k)
    shard_n, shard_k = (n, k // 8) if row_parallel else (n // 8, k)

    def passes(n: int, k: int) -> float:
        return 1 / _by_hand(m, n, k) + 1 / _by_hand(m, k, n) + 1 / _by_hand(k, n, m)

    # The clock sustained under load depends on a launch's FLOPs (a shard's are 1/8): held at
    # the burst clock here, as the MAMF ceiling was measured.
    ceilings = Ceilings.from_accelerator(mlcost.accelerator(H100), "bf16", sustained_curve=())
    whole = gemm_compute((op,), ceilings, (False,))[0]
    shard = gemm_compute((op,), ceilings, (False,), (8, 1))[0]
    assert shard / whole == pytest.approx(passes(shard_n, shard_k) / passes(n, k), rel=1e-3)
    # Context parallelism over 2 splits the rows instead: m/2 = 2048 tokens per rank.
    halves = gemm_compute((op,), ceilings, (False,), (1, 2))[0]
    rows = 1 / _by_hand(m // 2, n, k) + 1 / _by_hand(m // 2, k, n) + 1 / _by_hand(k, n, m // 2)
    assert halves / whole == pytest.approx(rows / passes(n, k), rel=1e-3)


def test_megatron_core_runs_q_k_and_v_as_one_gemm() -> None:
    # Megatron-Core's linear_qkv is one GEMM of hidden -> (n_q + 2 n_kv) x d (attention.py);
    # the Hugging Face modules (and FSDP's profile, which runs them) keep q, k and v apart.
    # Llama-3-70B at TP 8 (h = 8192, 64 query and 8 KV heads of 128): one GEMM of
    # 10240/8 = 1280 columns against 1024 for q and 128 each for k and v; each time is
    # F x sum over passes of 1 / (wave x depth), F proportional to the output width.
    model, config = mlcost.model("llama-3-70b"), TrainingConfig(sequence_length=4096)
    layout = Layout(tp=8, micro_batch_size=1)

    # At the burst clock (the clock sustained under load depends on each launch's FLOPs).
    burst = Ceilings.from_accelerator(mlcost.accelerator(H100), "bf16", sustained_curve=())

    def qkv(name: str) -> float:
        step = step_time(model, config, burst, layout, implementation=name, shard=(8, 1))
        rows = zip(step.table.operators, step.rows, strict=True)
        return sum(r.compute for op, r in rows if op.fuse_group == "qkv")

    def passes(n: int, m: int = 4096, k: int = 8192) -> float:
        return 1 / _by_hand(m, n, k) + 1 / _by_hand(m, k, n) + 1 / _by_hand(k, n, m)

    expected = 10240 * passes(1280) / (8192 * passes(1024) + 2 * 1024 * passes(128))
    assert qkv("megatron-core") / qkv("fsdp") == pytest.approx(expected, rel=1e-3)
    assert expected < 0.9  # k and v alone fill one wave of 132 SMs with 32 tiles


def test_every_tensor_parallel_rank_launches_every_kernel() -> None:
    # GPT-2 small at 64 tokens under an eager loop: almost every kernel waits for its launch and
    # the host's dispatch. Tensor parallelism divides the kernels' work over the ranks, not
    # their number: each rank launches all of them, so a rank's micro-batch never drops below
    # the per-kernel time of the one-GPU step (it fell to an eighth of it when that was split).
    from mlcost.parallel.compute import compute_parts, shard_compute
    from mlcost.parallel.degrees import Degrees

    model, config = mlcost.model("gpt2"), TrainingConfig(sequence_length=64)
    software, gpu = implementation("ddp-eager"), mlcost.accelerator(H100)
    one = compute_parts(model, config, gpu, Layout(micro_batch_size=1), np.array([1]),
                        software=software)  # fmt: skip
    per_kernel = float(one.layers_launch[0] + one.embedding_launch[0] + one.head_launch[0])
    assert per_kernel > 0.3 * float(
        one.layers_split[0] + one.layers_replicated[0] + one.embedding[0]
        + one.head_split[0] + one.head_replicated[0] + per_kernel
    )  # fmt: skip
    layout = Layout(tp=4, micro_batch_size=1)
    parts = compute_parts(model, config, gpu, layout, np.array([1]), software=software)
    shard = shard_compute(parts, Degrees.from_layouts([layout], model.num_layers), 12)
    assert float(shard.micro_batch[0]) >= per_kernel


# ----- collectives ------------------------------------------------------------------------------
def test_nvls_bus_bandwidth_on_8_h100() -> None:
    # nccl-tests issue #212: NVLS all-reduce algbw about 275 GB/s, reported busbw
    # algbw x 2(n-1)/n = 481 (PERFORMANCE.md keeps the ring factor for NVLS); the ring 370.
    big = Q_(16, "GiB")
    nvls = collective_time("dgx-h100", "all-reduce", big)
    ring = collective_time("dgx-h100", "all-reduce", big, algorithm="ring")
    assert nvls.bus_bandwidth.to("GB/s").magnitude == pytest.approx(275 * 2 * 7 / 8, rel=0.01)
    assert ring.bus_bandwidth.to("GB/s").magnitude == pytest.approx(370, rel=0.01)


@pytest.mark.parametrize(
    ("ranks", "measured"), [(5, 414.2), (6, 435.6), (7, 460.0), (8, 473.1)]
)  # fmt: skip
def test_nvls_bandwidth_grows_with_the_gpu_count_as_its_traffic_says(
    ranks: int, measured: float
) -> None:
    # NCCL's NVLS all-reduce (src/device/all_reduce.h): each GPU's buffer is read once by the
    # switch for the reduction and its reduced 1/n chunk stored to every GPU, so per GPU and
    # direction S + S/n cross its switch ports: algbw(n) = B·n/(n+1). B from the one measured
    # point, 8x H100 algbw 275 GB/s (nccl-tests issue #212): B = 275·9/8. busbw = algbw·2(n-1)/n.
    port = 275 * 9 / 8
    expected = port * ranks / (ranks + 1) * 2 * (ranks - 1) / ranks
    big = Q_(8, "GiB")
    busbw = collective_time("dgx-h200", "all-reduce", big, ranks=ranks).bus_bandwidth
    assert busbw.to("GB/s").magnitude == pytest.approx(expected, rel=0.005)
    # Bekman, ml-engineering network/README.md SHARP table: 8x H200, 8 GiB, NVLS from 5 GPUs on.
    assert busbw.to("GB/s").magnitude == pytest.approx(measured, rel=0.02)


def test_in_network_bandwidth_needs_the_gpu_count_it_was_measured_on() -> None:
    text = (
        "kind: link\nname: my-switch\nfamily: nvlink\nbandwidth_per_direction: 450 GB/s\n"
        "in_network_bandwidth: 275 GB/s\n"
    )
    with pytest.raises(MlcostError, match="in_network_ranks: missing"):
        mlcost.specs.load_spec_text(text)
    link = mlcost.specs.load_spec_text(text + "in_network_ranks: 8\n")
    assert link.in_network_port_rate.to("GB/s").magnitude == pytest.approx(275 * 9 / 8)


def test_nccl_picks_nvls_from_five_gpus_and_never_without_nvlink_sharp() -> None:
    # ml-engineering network/README.md (8x H200): the ring at 4 GPUs, NVLS from 5; A100's
    # NVSwitch 2 has no in-network reduction.
    size = Q_(8, "GiB")

    def busbw(target: str, ranks: int) -> float:
        return collective_time(target, "all-reduce", size, ranks=ranks).bus_bandwidth.magnitude

    ring = collective_time("dgx-h200", "all-reduce", size, ranks=4, algorithm="ring")
    assert busbw("dgx-h200", 4) == pytest.approx(ring.bus_bandwidth.magnitude, rel=1e-12)
    assert busbw("dgx-h200", 5) > 1.1 * ring.bus_bandwidth.magnitude
    with pytest.raises(mlcost.MlcostError, match="in-network reduction"):
        collective_time("dgx-a100", "all-reduce", size, algorithm="nvls")
    assert busbw("dgx-a100", 8) == pytest.approx(230, rel=0.01)  # nccl-tests issue #149


# ----- attention kernels ------------------------------------------------------------------------
def test_flash_attention_time_from_the_papers_throughput() -> None:
    # FlashAttention-2 paper Fig. 4: A100, causal, head dim 128, sequence 2048: 155 TFLOP/s
    # forward + backward, FLOPs 3.5 x the forward 4·s²·d·h·b/2.
    kernel = mlcost.catalog().kernel("flash-attn-2")
    s, d, heads, b = 2048, 128, 32, 4
    forward = 4 * s * s * d * heads * b / 2
    seconds = attention_kernel_seconds(kernel, A100, forward, head_dim=d, causal=True, sequence=s)
    assert seconds == pytest.approx(3.5 * forward / 155e12, rel=1e-12)


def test_causal_backward_scaled_by_the_forward_mask_ratio() -> None:
    # FA3 paper: cuDNN forward d=128 at 4096: 518 (causal) and 609 (non-causal) TFLOP/s; backward
    # non-causal 499. A causal pass: F/518 + 2.5 F / (499 x 518/609). The paper's curves alone
    # (the catalog also has curves measured over launch sizes, preferred where they exist).
    full = mlcost.catalog().kernel("cudnn-fused-attention")
    kernel = full.model_copy(update={"curves": tuple(c for c in full.curves if not c.batch_heads)})
    forward = 1e12
    seconds = attention_kernel_seconds(
        kernel, H100, forward, head_dim=128, causal=True, sequence=4096
    )
    expected = forward / 518e12 + 2.5 * forward / (499e12 * 518 / 609)
    assert seconds == pytest.approx(expected, rel=1e-9)


def test_the_implementation_chooses_the_kernel_measured_on_the_gpu() -> None:
    megatron = implementation("megatron-core")
    assert megatron.attention_kernel((H100,)).name == "cudnn-fused-attention"
    assert megatron.attention_kernel((A100,)).name == "flash-attn-2"  # cuDNN: Hopper numbers only
    assert megatron.attention_kernel(("v100-sxm2-32gb",)) is None


# ----- FP8 --------------------------------------------------------------------------------------
def test_fp8_runs_layer_gemms_in_fp8_and_charges_their_casts() -> None:
    # Transformer Engine: te.Linear GEMMs in FP8; the LM head and attention in BF16. Casts per FP8
    # GEMM: input and weight read in BF16 (2 B) and written as FP8 and its transpose (1 + 1 B);
    # the output gradient likewise in backward.
    model = mlcost.model("llama-2-7b")
    table = operators(model, TrainingConfig(precision="fp8", sequence_length=512))
    by_name = {op.name: op for op in table.operators}
    assert by_name["lm head (logits)"].format == "bf16"
    assert by_name["attention scores QK^T"].format == "bf16"
    assert by_name["q projection"].format == ""
    t, h, f = 512, 4096, 11008
    gemms = [(t, h, h)] * 4 + [(t, h, f), (t, h, f), (t, f, h)]  # (m, k, n): q k v o gate up down
    forward = sum(m * k + k * n for m, k, n in gemms)
    backward = sum(m * n for m, k, n in gemms)
    casts = by_name["fp8 casts (inputs, weights, output gradients)"]
    assert casts.bytes_read + casts.bytes_written == 4 * forward
    assert casts.backward_bytes == 4 * backward


def test_fp8_is_faster_than_bf16_but_not_twice() -> None:
    # FP8 doubles the tensor peak, but its measured best shape reaches 70.9% (not 80.3%), the
    # heads and attention stay in BF16 and the casts cost memory traffic.
    model, layout = mlcost.model("llama-2-7b"), Layout(micro_batch_size=4)
    bf16 = step_time(model, TrainingConfig(precision="bf16-mixed"), H100, layout)
    fp8 = step_time(model, TrainingConfig(precision="fp8"), H100, layout)
    speedup = bf16.seconds / fp8.seconds
    assert 1.0 < speedup < 2 * 0.709 / 0.803


# ----- tensor-parallel overlap ------------------------------------------------------------------
def test_tensor_parallel_overlap_hides_what_the_gemms_cover() -> None:
    model, config = mlcost.model("llama-2-13b"), TrainingConfig(sequence_length=4096)
    plain = Layout(tp=8, micro_batch_size=1, gradient_accumulation=4, sequence_parallel=True)
    overlapped = plain.model_copy(update={"tp_overlap": True})
    a = mlcost.multi_gpu_step_time(model, config, "dgx-h100", plain)
    b = mlcost.multi_gpu_step_time(model, config, "dgx-h100", overlapped)
    tp_a = a.terms.set_index("strategy").loc["tensor parallel"]
    tp_b = b.terms.set_index("strategy").loc["tensor parallel"]
    # Without the overlap only the two all-gathers Megatron redoes in backward (of 4 reduce-
    # scatters + 6 all-gathers per layer and micro-batch, about equal in time) hide, behind the
    # input-gradient GEMMs: at least 8/10 of the time stays exposed.
    assert tp_a["exposed"] >= 0.8 * tp_a["time"]
    assert tp_b["exposed"] < tp_a["exposed"]
    assert b.total < a.total
    with pytest.raises(mlcost.MlcostError, match="tp_overlap"):
        mlcost.multi_gpu_step_time(model, config, "dgx-h100", overlapped, implementation="fsdp")


# ----- the loss kernels -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "bytes_per_logit"),
    [
        # Megatron-Core's unfused vocab-parallel loss (megatron/core/tensor_parallel/
        # cross_entropy.py): forward .float() 2+4, max 4, in-place subtract 4+4, exp 4+4, sum 4,
        # divide 4+4; backward in-place multiply 4+4 and the cast back to BF16 4+2.
        ("megatron-core", (2 + 4) + 4 + 8 + 8 + 4 + 8 + 8 + (4 + 2)),
        # flash-attention 1.0.9's xentropy: two reads of the BF16 logits forward, one read and
        # one write backward.
        ("fsdp", 2 + 2 + 2 + 2),
    ],
)
def test_the_loss_moves_what_the_implementation_passes_over_the_logits(
    name: str, bytes_per_logit: int
) -> None:
    model = mlcost.model("gpt2")
    config = TrainingConfig(sequence_length=1024)
    frame = step_time(model, config, H100, implementation=name).to_frame().set_index("name")
    ceilings = Ceilings.from_accelerator(mlcost.accelerator(H100), "bf16")
    bandwidth = ceilings.bandwidth.to("byte/s").magnitude * ceilings.memory_efficiency
    logits = 1024 * 50257
    expected = logits * bytes_per_logit / bandwidth
    assert frame.loc["cross-entropy loss", "memory_s"] == pytest.approx(expected, rel=1e-9)


def test_the_default_implementation_is_the_catalogs_whatever_the_working_folder_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``implementation(None)`` is the catalog's default profile: a file of the same name in
    the working folder (which a name given explicitly may resolve to) is not read."""
    from mlcost.implementation import DEFAULT_IMPLEMENTATION

    (tmp_path / DEFAULT_IMPLEMENTATION).write_text("kind: implementation\nname: [not yaml\n")
    monkeypatch.chdir(tmp_path)
    assert implementation(None).spec.name == DEFAULT_IMPLEMENTATION
    with pytest.raises(MlcostError):  # named explicitly, the path is what it reads
        implementation(DEFAULT_IMPLEMENTATION)


def test_the_default_implementation_is_resolved_once_per_catalog() -> None:
    # implementation(None) is looked up once per catalog (every step asks for it), and a catalog
    # with another profile of that name answers with its own.
    from mlcost.implementation import DEFAULT_IMPLEMENTATION

    default = implementation(None)
    assert implementation(None) is default
    slower = default.spec.model_copy(update={"dispatch_overhead": Q_(99, "us")})
    other = mlcost.catalog().with_specs(slower)
    assert other.implementation(DEFAULT_IMPLEMENTATION) is slower
    assert implementation(None, other).spec.dispatch_seconds == 99e-6
    assert implementation(None).spec.dispatch_seconds != 99e-6


def test_an_h200_runs_gemms_as_an_h100_does() -> None:
    # The same GH100 compute: the whitepaper's peaks (989.4 dense BF16), 132 SMs (measured on an
    # H200: benchmarks/data/h200-2026-11-25) and MAMF ("H200 is the same", Bekman): every GEMM
    # takes the same time. (Without its SM count the H200's tile depth K0 was 132 times the
    # H100's and its GEMMs ran 1.8 times slower.)
    shapes = [(4096, 4096, 4096), (4096, 11008, 4096), (8192, 1024, 512), (2048, 2048, 13312)]
    for gpu in (H100, "h200-sxm-141gb"):
        ceilings = Ceilings.from_accelerator(mlcost.accelerator(gpu), "bf16")
        shares = [
            ceilings.gemm_wave_efficiency(m, n) * ceilings.gemm_depth_efficiency(k)
            for m, n, k in shapes
        ]
        if gpu == H100:
            expected = shares
    assert shares == pytest.approx(expected, rel=1e-12)
    # K0 = 790 (DeepGEMM, at 1978.9 TFLOP/s over 132 SMs) x the H200's BF16 per-SM peak
    k0 = 790 * (989.4e12 / 132) / (1978.9e12 / 132)
    h200 = Ceilings.from_accelerator(mlcost.accelerator("h200-sxm-141gb"))
    assert h200.k_overhead == pytest.approx(k0, rel=1e-4)


def test_a_gpu_without_an_sm_count_has_no_tile_effects() -> None:
    # K0 scales with the per-SM peak (roofline.GEMM_DEPTH_OVERHEAD); without compute_units it is
    # unknown, so a spec of one leaves tile, wave and depth effects out rather than treating the
    # whole GPU as one SM.
    gpu = mlcost.accelerator(H100).model_copy(update={"compute_units": None})
    ceilings = Ceilings.from_accelerator(gpu, "bf16")
    assert ceilings.k_overhead == 0
    assert ceilings.gemm_depth_efficiency(256) == 1.0
    assert ceilings.gemm_wave_efficiency(200, 200) == 1.0
    assert "no compute_units" in ceilings.source
