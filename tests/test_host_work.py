"""Host work of an eager training step on a host-executed device (a CPU, issue 62): the
operations a for-loop optimizer dispatches, counted by PyTorch's own dispatcher; the page faults
of fresh buffers at or above glibc's mmap threshold, counted by the kernel, and the buffers of a
model that reach it, derived by hand from mallopt(3); the first-touch rate fitted from the bench's
host family. Nothing here is timed."""

from __future__ import annotations

import platform
import resource
import subprocess
import sys
from typing import Any

import pandas as pd
import pytest

from mlcost.assumptions import ASSUMPTION_SOURCES, Assumptions
from mlcost.bench.model import GPT, GPTConfig, spec_of
from mlcost.bench.store import COLUMNS, record
from mlcost.calibrate import FIRST_TOUCH_BOUNDS, fit_first_touch
from mlcost.errors import MlcostError
from mlcost.implementation import HOST_IMPLEMENTATION, implementation
from mlcost.layout import Layout
from mlcost.specs import Accelerator, spec_from_dict
from mlcost.timing import step_time
from mlcost.validate import bench_training

torch = pytest.importorskip("torch")

MIB = 2**20


def _cpu(first_touch: str | None = "2 GB/s") -> Accelerator:
    """A CPU profile as ``mlcost calibrate`` writes one, its first-touch rate given."""
    measured: dict[str, Any] = {
        "measured_on": "cpu",
        "date": "2026-11-27",
        "launch_overhead": "3 us",
    }
    if first_touch:
        measured |= {"first_touch_bandwidth": first_touch, "mmap_threshold": "32 MiB"}
    spec = spec_from_dict(
        {
            "kind": "accelerator",
            "name": "test-cpu",
            "vendor": "measured",
            "memory_capacity": "64 GiB",
            "memory_bandwidth": "20 GB/s",
            "tdp": "125 W",
            "peak_compute": [{"format": "fp32", "engine": "vector", "dense": "100 GFLOP/s"}],
            "measured": measured,
            "references": {"test": "a profile written by hand for this test"},
            "sources": {"*": "test"},
        }
    )
    assert isinstance(spec, Accelerator)
    return spec


def _loss_row(vocab: int, micro_batch: int, gpu: Accelerator, software: str = HOST_IMPLEMENTATION):
    config = GPTConfig(vocab_size=vocab, sequence_length=256, layers=2, hidden=256, heads=4)
    step = step_time(
        spec_of(config),
        bench_training(256, "fp32"),
        gpu,
        Layout(micro_batch_size=micro_batch),
        implementation=software,
    )
    return step, next(row for row in step.rows if row.kind == "loss")


class _Dispatched(torch.utils._python_dispatch.TorchDispatchMode):
    """Counts the aten operations PyTorch's dispatcher runs (its own count, not mlcost's)."""

    count: int

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        self.count += func.namespace == "aten"  # not the profiler's record_function marks
        return func(*args, **(kwargs or {}))


def test_a_cpu_adamw_dispatches_the_operations_per_tensor_the_profile_counts() -> None:
    # A real tiny model on the CPU: torch.optim.AdamW takes its for-loop path there, and the
    # dispatcher counts what one step runs per parameter tensor.
    torch.manual_seed(0)
    model = GPT(GPTConfig(vocab_size=64, sequence_length=8, layers=1, hidden=16, heads=2))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    ids = torch.randint(0, 64, (2, 8))
    model(ids).backward()
    optimizer.step()  # the first step creates the state
    model(ids).backward()
    with _Dispatched() as dispatched:
        optimizer.step()
    tensors = len(list(model.parameters()))
    spec = implementation(HOST_IMPLEMENTATION).spec
    assert dispatched.count == spec.optimizer_ops_per_tensor * tensors
    assert spec.optimizer_kernel == "for-loop"
    # 80 bytes per FP32 parameter (the profile's notes, op by op) over a fused kernel's 28
    assert spec.optimizer_passes == pytest.approx((8 + 12 + 8 + 12 + 8 + 8 + 8 + 16) / 28, 1e-3)


def test_which_logit_buffers_reach_the_mmap_threshold_by_hand() -> None:
    # mallopt(3): an allocation of DEFAULT_MMAP_THRESHOLD_MAX (32 MiB on 64-bit) or more is
    # always mapped afresh and unmapped on free. The reference GPT's FP32 logits are
    # micro-batch x 256 tokens x vocabulary x 4 bytes; the eager loss allocates four buffers of
    # that shape a step (logits, log-probabilities, zero-filled gradient, logits' gradient).
    assert Assumptions().host_mmap_threshold.to("MiB").magnitude == 32
    assert "mallopt(3)" in ASSUMPTION_SOURCES["host_mmap_threshold"]
    cpu = _cpu("2 GB/s")
    cases = {  # (vocabulary, micro-batch): logits bytes
        (4096, 4): 4 * 256 * 4096 * 4,  # 16 MiB: below, not mapped afresh
        (8192, 4): 4 * 256 * 8192 * 4,  # 32 MiB: at the threshold
        (8192, 8): 8 * 256 * 8192 * 4,  # 64 MiB
    }
    assert cases[(4096, 4)] == 16 * MIB and cases[(8192, 4)] == 32 * MIB
    for (vocab, batch), size in cases.items():
        _, row = _loss_row(vocab, batch, cpu)
        expected = 4 * size / 2e9 if size >= 32 * MIB else 0.0
        assert float(row.first_touch) == pytest.approx(expected), (vocab, batch)
    # 4 x 32 MiB at 2 GB/s: 67.1 ms, added to the loss's time
    step, row = _loss_row(8192, 4, cpu)
    bare, plain = _loss_row(8192, 4, _cpu(None))
    assert float(row.first_touch) == pytest.approx(0.0671088640)
    assert float(row.total - plain.total) == pytest.approx(0.0671088640)
    assert float(step.seconds - bare.seconds) == pytest.approx(0.0671088640)
    # explain() names the term and where its rate came from
    figure = next(f for f in step.figures() if f.name == "first touch")
    assert "measured on this machine by mlcost bench" in figure.source
    assert "mallopt(3)" in figure.source


def test_a_gpu_or_an_implementation_without_logit_buffers_pays_no_first_touch() -> None:
    _, row = _loss_row(8192, 8, _cpu("2 GB/s"), software="ddp-eager")
    assert float(row.first_touch) == 0.0
    _, row = _loss_row(8192, 8, _cpu(None))
    assert float(row.first_touch) == 0.0


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="the mmap threshold is glibc's",
)
def test_a_fresh_buffer_above_the_threshold_faults_every_page_in() -> None:
    # The kernel's own count (getrusage's minor faults), in a fresh interpreter (a long test
    # process's allocator state is not a step's): a 64 MiB buffer allocated afresh is mapped
    # afresh every time, so filling it faults in each of its pages; the same fill of a buffer
    # kept is no fault at all.
    code = """
import resource, torch
elements = 64 * 2**20 // 4
kept = torch.empty(elements); kept.fill_(0.0)
def faults(function):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    function()
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
for _ in range(3):
    print(faults(lambda: torch.empty(elements).fill_(1.0)), faults(lambda: kept.fill_(1.0)))
"""
    pages = 64 * MIB // resource.getpagesize()
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    fresh, kept = [int(x) for x in out[0::2]], [int(x) for x in out[1::2]]
    assert len(fresh) == 3 and all(count >= 0.9 * pages for count in fresh), fresh
    assert all(count <= 0.01 * pages for count in kept), kept


def _host_results(fresh: float, reused: float, nbytes: int = 64 * MIB) -> pd.DataFrame:
    rows = [
        record(
            "host",
            name,
            "cpu",
            "fp32",
            {"bytes": nbytes},
            timing=None,
            bytes_moved=nbytes,
        )
        for name in ("fill-fresh", "fill-reused")
    ]
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    for column in ("median_s", "best_s", "p10_s", "p90_s"):
        frame[column] = [fresh, reused]
    frame["status"] = "ok"
    return frame


def test_the_first_touch_rate_is_fitted_and_bounded() -> None:
    # 64 MiB in 26 ms beyond the reused fill: 2^26 B / 0.026 s = 2.581 GB/s
    assert fit_first_touch(_host_results(0.030, 0.004)) == pytest.approx(2**26 / 0.026)
    # no extra time: no page faults measured (an allocator that keeps its pages), no term
    assert fit_first_touch(_host_results(0.004, 0.004)) is None
    # slower than a page fault allows (64 MiB in 1 s: 0.067 GB/s): a disturbed timing, refused
    assert FIRST_TOUCH_BOUNDS[0] > 2**26 / 1.0
    with pytest.raises(MlcostError, match=r"host fill-fresh: .* disturbed"):
        fit_first_touch(_host_results(1.004, 0.004))
    assert fit_first_touch(_host_results(0.004, 0.004).iloc[:0]) is None


def _table(spec: Any, sequence: int, micro_batch: int) -> Any:
    from mlcost.workload import operators

    return operators(spec, bench_training(sequence, "fp32"), Layout(micro_batch_size=micro_batch))


@pytest.mark.parametrize("layers", [1, 2, 5])
def test_parameter_tensors_are_counted_as_the_torch_module_holds_them(layers: int) -> None:
    # PyTorch's own count: the reference GPT's nn.Parameters (fused qkv Linear with its bias,
    # separate biases, LayerNorm weight and bias, two embeddings, tied head): 12 per layer + 4
    from mlcost.operator_time import fused_groups, parameter_tensors

    config = GPTConfig(vocab_size=64, sequence_length=8, layers=layers, hidden=16, heads=2)
    table = _table(spec_of(config), 8, 2)
    fused = fused_groups(table.operators, None, bool(table.metadata.get("fused_qkv")))
    assert parameter_tensors(table, fused) == len(list(GPT(config).parameters()))
    assert len(list(GPT(config).parameters())) == 12 * layers + 4


@pytest.mark.parametrize("family", ["llama", "gpt2", "qwen2"])
def test_parameter_tensors_of_hugging_face_models(family: str) -> None:
    # transformers' own modules: Llama (no biases, RMSNorm, untied head), GPT-2 (fused c_attn,
    # biases everywhere), Qwen2 (q, k, v biases only, tied head)
    transformers = pytest.importorskip("transformers")
    from mlcost.operator_time import fused_groups, parameter_tensors
    from mlcost.specs import from_hf_config

    small = {"vocab_size": 128, "max_position_embeddings": 64}
    configs = {
        "llama": lambda: transformers.LlamaConfig(
            **small, hidden_size=32, intermediate_size=64, num_hidden_layers=3,
            num_attention_heads=4, num_key_value_heads=2, tie_word_embeddings=False,
        ),
        "gpt2": lambda: transformers.GPT2Config(
            vocab_size=128, n_positions=64, n_embd=32, n_layer=3, n_head=4
        ),
        "qwen2": lambda: transformers.Qwen2Config(
            **small, hidden_size=32, intermediate_size=64, num_hidden_layers=3,
            num_attention_heads=4, num_key_value_heads=2, tie_word_embeddings=True,
        ),
    }  # fmt: skip
    config = configs[family]()
    model = transformers.AutoModelForCausalLM.from_config(config)
    table = _table(from_hf_config(config.to_dict(), name=family), 16, 2)
    fused = fused_groups(table.operators, None, bool(table.metadata.get("fused_qkv")))
    assert parameter_tensors(table, fused) == len(list(model.parameters()))


def test_the_optimizer_row_dispatches_what_adamw_dispatches_on_the_reference_gpt() -> None:
    # The dispatcher's count over one real AdamW step of the reference GPT against the
    # optimizer row's host operations (its dispatches past the step's own one or two)
    config = GPTConfig(vocab_size=64, sequence_length=8, layers=2, hidden=16, heads=2)
    torch.manual_seed(0)
    model = GPT(config)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    ids = torch.randint(0, 64, (2, 8))
    for _ in range(2):
        model(ids).backward()
        if _ == 0:
            optimizer.step()
    with _Dispatched() as dispatched:
        optimizer.step()
    cpu = _cpu(None)
    step = step_time(
        spec_of(config), bench_training(8, "fp32"), cpu, Layout(micro_batch_size=2),
        implementation=HOST_IMPLEMENTATION,
    )  # fmt: skip
    row = next(r for r in step.rows if r.kind == "optimizer")
    dispatch = implementation(HOST_IMPLEMENTATION).spec.dispatch_seconds
    own = 1  # the optimizer row's own forward dispatch (no backward)
    assert float(row.host) / dispatch - own == pytest.approx(dispatched.count)


class _Sums(torch.utils._python_dispatch.TorchDispatchMode):
    """The reductions autograd runs for bias gradients (``aten.sum.dim_IntList`` over dim 0 of
    a 2-D output gradient), counted by PyTorch's dispatcher with the bytes they read."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0
        self.bytes = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        if func is torch.ops.aten.sum.dim_IntList and args[0].dim() == 2:
            self.count += 1
            self.bytes += args[0].numel() * args[0].element_size()
        return func(*args, **(kwargs or {}))


def test_eager_bias_gradient_sums_are_the_reductions_autograd_runs() -> None:
    # Eager backward of the reference GPT: one sum over the tokens per biased Linear (qkv,
    # proj, up, down: 4 per layer), reading its [tokens x n] output gradient. By hand: tokens
    # T = 2 x 8, widths 3h + h + 4h + h = 9h, FP32: 2 layers x T x 9h x 4 B.
    config = GPTConfig(vocab_size=64, sequence_length=8, layers=2, hidden=16, heads=2)
    torch.manual_seed(0)
    loss = GPT(config)(torch.randint(0, 64, (2, 8)))
    with _Sums() as sums:
        loss.backward()
    assert sums.count == 2 * 4
    assert sums.bytes == 2 * 16 * 9 * 16 * 4
    # mlcost: the GEMM rows read those bytes once more at the stream rate, one more launch
    # per biased GEMM (the fused q, k, v one); nothing under an implementation that fuses them
    cpu = _cpu(None)
    spec = implementation(HOST_IMPLEMENTATION).spec
    assert spec.bias_gradient_sums

    def gemms(software: Any) -> tuple[list[Any], Any]:
        step = step_time(
            spec_of(config), bench_training(8, "fp32"), cpu, Layout(micro_batch_size=2),
            implementation=software,
        )  # fmt: skip
        return [r for r in step.rows if r.kind == "matmul"], step.ceilings

    eager, ceilings = gemms(spec)
    fused, _ = gemms(spec.model_copy(update={"bias_gradient_sums": False}))
    extra = sum(float(a.memory - b.memory) for a, b in zip(eager, fused, strict=True))
    assert extra == pytest.approx(float(ceilings.stream_seconds(sums.bytes, 0.0)))
    launches = sum(float(a.gaps - b.gaps) for a, b in zip(eager, fused, strict=True))
    assert launches / ceilings.launch_seconds == pytest.approx(sums.count)
    added = sum(float(a.total - b.total) for a, b in zip(eager, fused, strict=True))
    assert added >= extra


def test_the_reference_gpt_scored_against_its_inputs_has_no_loss_to_learn() -> None:
    # PyTorch's own values: at the default N(0, 1) embeddings the tied head scores each token's
    # own embedding far above the others, so the FP32 loss against the inputs is 0.0 and the
    # gradients vanish (zero, subnormal or below 1e-30): not a training step. The bench's end-to-end
    # step scores other targets, with a loss of about ln(vocabulary) or more and normal
    # gradients, as the kernel benchmarks' random inputs have. The quick preset's width and
    # vocabulary (hidden 256, vocabulary 4,096), fewer tokens and layers.
    config = GPTConfig(vocab_size=4096, sequence_length=32, layers=1, hidden=256, heads=4)
    tiny = torch.finfo(torch.float32).tiny
    torch.manual_seed(0)
    ids, targets = torch.randint(0, 4096, (2, 2, 32))
    model = GPT(config)
    loss = model(ids)
    loss.backward()
    assert float(loss) == 0.0
    assert float(model.tokens.weight.grad.abs().max()) < 1e-30
    assert float(model.tokens.weight.grad.abs().mean()) < 1e3 * tiny
    model.zero_grad(set_to_none=True)
    loss = model(ids, targets)
    loss.backward()
    assert float(loss) > 8.3  # ln 4096 = 8.32, a uniform guess
    assert float(model.tokens.weight.grad.abs().max()) > 1e-6
