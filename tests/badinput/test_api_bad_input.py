"""The bad-input suite in Python (issue 15): the examples of the issue, then hypothesis
strategies over the public API and the CLI (in-process). Every answer is mlcost's own error
(:class:`mlcost.MlcostError`, one line naming the field) or a valid result; no foreign exception
escapes, and no NaN or infinity reaches a result."""

from __future__ import annotations

import json
import math
import os
import re
import stat
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mlcost
from mlcost import Layout, Plan, TrainingConfig
from mlcost.errors import MlcostError, SpecError
from mlcost.io import write_text_atomically
from mlcost.roofline import Ceilings
from mlcost.specs import default_catalog, from_hf_config, load_spec_text
from mlcost.timing import iron_law
from mlcost.units import parse_count, parse_quantity
from tests.cli.conftest import invoke

GPT2_ON_ONE = {"gpu": "h100-sxm5-80gb", "gpus": 1, "layout": Layout(micro_batch_size=4)}


def _answer(call: Any) -> Any:
    """The result of ``call``, or None when it raised mlcost's own error (one line)."""
    try:
        return call()
    except MlcostError as error:
        text = str(error)
        assert text and "Traceback" not in text
        first = text.splitlines()[0]
        assert len(first) < 1000
        return None


def _finite_json(data: Any) -> None:
    """Strict JSON: json.dumps refuses NaN and infinities with allow_nan=False."""
    json.dumps(data, allow_nan=False, default=str)


# ----- the examples of the issue ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (lambda: mlcost.accelerator(None), "accelerator"),
        (lambda: iron_law("8.4e23", "1 EFLOP/s", 0.4), "operations"),
        (lambda: iron_law("8.4e23 flop", "1 EFLOP/s", 1.5), "efficiency"),
        (lambda: Plan("gpt2", **GPT2_ON_ONE, tokens="3 byte").summary(), "tokens"),
        (lambda: Plan("gpt2", **GPT2_ON_ONE, tokens=-3).summary(), "tokens"),
        (lambda: Plan("gpt2", **GPT2_ON_ONE, tokens=math.inf).summary(), "tokens"),
        (lambda: Plan("gpt2", **GPT2_ON_ONE, price=-3).summary(), "price"),
        # A GPU that fails at once has no goodput (it was a NaN wall clock, then a division by 0).
        (
            lambda: Plan("gpt2", **GPT2_ON_ONE, mtbf_per_gpu=mlcost.Q_(0, "hour")).summary(),
            "mtbf_per_gpu",
        ),
        (
            lambda: Plan("gpt2", **GPT2_ON_ONE, mtbf_per_gpu=mlcost.Q_(-1, "hour")).summary(),
            "mtbf_per_gpu",
        ),
        (
            lambda: Plan(
                "gpt2", **GPT2_ON_ONE, mtbf_per_gpu=mlcost.Q_(math.inf, "hour")
            ).summary(),
            "mtbf_per_gpu",
        ),
        (lambda: Plan("gpt2", **GPT2_ON_ONE, mtbf_per_gpu=mlcost.Q_(5, "GB")).summary(), "mtbf"),
        # One value expected (positive_magnitude raised numpy's TypeError for an array).
        (
            lambda: Plan(
                "gpt2", **GPT2_ON_ONE, mtbf_per_gpu=mlcost.Q_(np.array([5e4, 1e3]), "hour")
            ).summary(),
            "one finite value",
        ),
        (lambda: Plan("gpt2", **GPT2_ON_ONE, price="1 kg").summary(), "price"),
        (
            lambda: Plan(
                "llama-2-7b", gpu="h100-sxm5-80gb",
                config=TrainingConfig(sequence_length=100_000),
            ).summary(),
            "max_position_embeddings",
        ),
        (
            lambda: Plan("llama-2-7b", gpu="h100-sxm5-80gb", gpus=3, layout=Layout(tp=3)).summary(),
            "attention heads",
        ),
        (
            lambda: Plan(
                "gpt2", **GPT2_ON_ONE, sustained=mlcost.Q_(2000, "TFLOP/s")
            ).summary(),
            "peak",
        ),
        (
            lambda: Plan(
                "gpt2", gpu="v100-sxm2-16gb", gpus=1, layout=Layout(micro_batch_size=1),
                config=TrainingConfig(precision="fp16-mixed"), price="aws-p5",
            ).summary(),
            "prices h100-sxm5-80gb",
        ),
        (lambda: Plan("gpt2", **GPT2_ON_ONE).sweep(gpus=[1, -8]), "gpus[1]"),
        (lambda: Plan("gpt2", **GPT2_ON_ONE).sweep(tokens=[1e9, math.inf]), "tokens[1]"),
        (lambda: Plan("gpt2", **GPT2_ON_ONE).sweep(micro_batch_size=[1, -2]), "micro_batch"),
        (lambda: Plan("gpt2", **GPT2_ON_ONE).sweep(price_per_gpu_hour=[-1.0]), "price"),
        (lambda: load_spec_text("kind: accelerator\nname: a\nname: b\n"), "given twice"),
        (lambda: load_spec_text("kind: grid\nname: g\ncarbon_intensity: .inf\n"), "finite"),
        # libyaml parses any depth (then: not a mapping); PyYAML's Python parser recurses
        (lambda: load_spec_text("[" * 5000 + "]" * 5000), ""),
        (
            lambda: from_hf_config(
                {"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 4,
                 "intermediate_size": 64, "vocab_size": 100}
            ),
            "hidden_size",
        ),
        (
            lambda: Ceilings.from_accelerator(
                mlcost.accelerator("h100-sxm5-80gb"), compute_efficiency=0
            ),
            "compute_efficiency",
        ),
        (
            lambda: Ceilings.from_accelerator(
                mlcost.accelerator("h100-sxm5-80gb"), memory_efficiency=1.2
            ),
            "memory_efficiency",
        ),
    ],
)  # fmt: skip
def test_issue_examples_are_refused_with_their_field(call: Any, fragment: str) -> None:
    with pytest.raises(MlcostError) as caught:
        call()
    assert fragment in str(caught.value)


def test_count_text_reads_the_same_in_python_and_the_cli() -> None:
    assert parse_count("2T", "tokens") == 2e12
    plan = Plan("gpt2", **GPT2_ON_ONE, tokens="2T")
    assert plan.run.tokens == 2e12


def test_names_work_where_specs_do() -> None:
    by_name = mlcost.memory_breakdown("gpt2", TrainingConfig(), "h100-sxm5-80gb")
    by_spec = mlcost.memory_breakdown(
        mlcost.model("gpt2"), TrainingConfig(), mlcost.accelerator("h100-sxm5-80gb")
    )
    assert by_name.total == by_spec.total


def test_the_default_sequence_is_capped_by_the_models_positions() -> None:
    """GPT-2 has 1024 positions (its config.json, n_positions): the 2048 default becomes 1024."""
    plan = Plan("gpt2", **GPT2_ON_ONE)
    assert plan.run.config.sequence_length == 1024


def test_zero1_formula_says_weights_and_gradients_are_not_sharded() -> None:
    breakdown = mlcost.memory_breakdown(
        "llama-2-7b", TrainingConfig(), "h100-sxm5-80gb", Layout(dp=8, zero_stage=1)
    )
    formulas = {term.name: term.formula for term in breakdown.terms}
    assert "/ 8" not in formulas["weights"] and "not sharded" in formulas["weights"]
    assert "/ 8" not in formulas["gradients"]
    assert "/ 8 (ZeRO-1)" in formulas["optimizer states"]


def test_spec_errors_are_bounded() -> None:
    text = "kind: accelerator\nname: x\n" + "".join(f"bogus{i}: 1\n" for i in range(5000))
    with pytest.raises(SpecError) as caught:
        load_spec_text(text)
    assert len(str(caught.value).splitlines()) <= 12
    assert "more" in str(caught.value)


def test_written_files_respect_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        write_text_atomically(tmp_path / "a.yaml", "x: 1\n")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "a.yaml").stat().st_mode) == 0o644


def test_calibrate_does_not_overwrite_a_profile(tmp_path: Path) -> None:
    existing = tmp_path / "profile.yaml"
    existing.write_text("mine\n")
    result = invoke("calibrate", str(tmp_path), "--out", str(existing))
    assert result.exit_code == 2 and "--force" in result.stderr
    assert existing.read_text() == "mine\n"


def _results_folder(tmp_path: Path, rows: list[str], metadata: dict[str, Any]) -> Path:
    header = (
        "family,name,device,format,params,status,median_s,p10_s,p90_s,mean_s,stdev_s,"
        "repeats,flops,bytes,detail\n"
    )
    (tmp_path / "results.csv").write_text(header + "".join(rows))
    (tmp_path / "metadata.json").write_text(json.dumps(metadata))
    return tmp_path


def test_calibration_warns_on_noise_and_refuses_a_base_from_another_device(
    tmp_path: Path,
) -> None:
    from mlcost.calibrate import calibrate, calibration_warnings

    params = '"{{""m"": {i}, ""n"": 64, ""k"": 64}}"'
    row = "gemm,g{i},cpu,fp32," + params + ",ok,{m},{lo},{hi},{m},0,5,{f},1,\n"
    rows = [row.format(i=64 * (i + 1), m=1e-3, lo=1e-3, hi=1e-3, f=1e8) for i in range(3)]
    rows.append(row.format(i=999, m=1e-3, lo=1e-6, hi=1e-3, f=1e8))  # p90/p10 = 1000
    folder = _results_folder(tmp_path, rows, {"device": "cpu", "preset": "quick"})
    found = calibration_warnings(folder)
    assert any("noisy" in w and "1e+03x" in w for w in found), found
    # Issue 65: a --base of another device is refused, not only warned about.
    for call in (calibration_warnings, calibrate):
        with pytest.raises(MlcostError, match="measured on the CPU"):
            call(folder, base=mlcost.accelerator("h100-sxm5-80gb"))


@pytest.mark.parametrize(
    ("gpu", "answer"),
    [("NVIDIA H100 80GB HBM3", "none"), ("NVIDIA A100-SXM4-80GB", "refused"), (None, "warned")],
)
def test_calibration_knows_which_gpu_the_bench_ran_on(
    tmp_path: Path, gpu: str | None, answer: str
) -> None:
    # The bench's metadata as `mlcost bench --device cuda` writes it on an H100 (the run of
    # benchmarks/data/h100-2026-11-25/mlcost-bench once lost the name: "device" was "cuda").
    from mlcost.calibrate import calibration_warnings

    params = '"{{""m"": {i}, ""n"": 64, ""k"": 64}}"'
    row = "gemm,g{i},cuda,bf16," + params + ",ok,1e-3,1e-3,1e-3,1e-3,0,5,1e8,1,\n"
    metadata = {"device": "cuda", "preset": "full", **({"gpu": gpu} if gpu else {})}
    folder = _results_folder(tmp_path, [row.format(i=64)], metadata)
    if answer == "refused":
        with pytest.raises(MlcostError, match="--base: got h100-sxm5-80gb"):
            calibration_warnings(folder, mlcost.accelerator("h100-sxm5-80gb"))
        return
    found = calibration_warnings(folder, mlcost.accelerator("h100-sxm5-80gb"))
    assert any("do not name the GPU" in w for w in found) is (answer == "warned"), found


def test_bench_refuses_to_mix_presets_in_one_folder(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from mlcost.bench.runner import run

    (tmp_path / "metadata.json").write_text(json.dumps({"preset": "quick", "device": "cpu"}))
    with pytest.raises(MlcostError, match="preset 'quick'"):
        run(tmp_path, device="cpu", preset="full", families=["launch"], progress=False)


@pytest.mark.parametrize(
    "text",
    [
        "family,name\n1,2\n",
        "family,name,device,format,par",
        "",
        "\x00\x01binary",
    ],
)
def test_foreign_or_truncated_results_are_refused(tmp_path: Path, text: str) -> None:
    from mlcost.bench.store import read_results_csv

    (tmp_path / "results.csv").write_text(text)
    with pytest.raises(MlcostError):
        read_results_csv(tmp_path)


# ----- hypothesis over the public API ----------------------------------------------------------
TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40) | st.sampled_from(
    ["inf", "-inf", "nan", "1e400", "2T", "80 GiB", "3 TB/s", "1/0", "()", "**"]
)
NUMBERS = st.one_of(
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=True, allow_infinity=True),
    TEXT,
    st.none(),
)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_parsing_text_is_a_quantity_or_a_unit_error(text: str) -> None:
    _answer(lambda: parse_quantity(text, field="x"))
    value = _answer(lambda: parse_count(text, "x"))
    assert value is None or (value > 0 and math.isfinite(value))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_yaml_text_is_a_spec_or_a_spec_error(text: str) -> None:
    _answer(lambda: load_spec_text(text))


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            ["model_type", "hidden_size", "num_hidden_layers", "num_attention_heads",
             "intermediate_size", "vocab_size", "max_position_embeddings", "n_embd", "n_layer",
             "n_head", "hidden_act", "num_key_value_heads", "head_dim", "sliding_window"]
        ),
        st.one_of(st.sampled_from(["llama", "gpt2", "mistral", "bert", "gelu", "silu"]), NUMBERS),
        max_size=10,
    )
)  # fmt: skip
def test_any_hf_config_is_a_spec_or_a_spec_error(config: dict[str, Any]) -> None:
    _answer(lambda: from_hf_config(config))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tokens=NUMBERS,
    price=st.one_of(NUMBERS, st.sampled_from(["aws-p5", "aws-p3-v100-on-demand", "3 USD/hour"])),
    pue=st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True)),
    micro=st.integers(min_value=-2, max_value=64),
    tp=st.sampled_from([1, 2, 3, 0]),
)
def test_any_plan_is_priced_finitely_or_refused(
    tokens: Any, price: Any, pue: Any, micro: int, tp: int
) -> None:
    def build() -> Any:
        layout = Layout(micro_batch_size=micro, tp=tp)
        plan = Plan(
            "gpt2", gpu="h100-sxm5-80gb", gpus=max(tp, 1), layout=layout, tokens=tokens,
            price=price, pue=pue,
        )  # fmt: skip
        return plan.to_json()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = _answer(build)
    if data is not None:
        _finite_json(data)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(
                ["--seq", "--batch", "--tp", "--pp", "--zero", "--precision", "--gpu",
                 "--recompute", "--json", "--optimizer", "--attention", "--window"]
            ),
            st.sampled_from(["0", "-1", "3", "1e9", "nan", "fp7", "bf16", "gpt2", "x", "", "8"]),
        ),
        max_size=6,
    ),
    st.sampled_from([["flops", "gpt2"], ["memory", "gpt2"], ["step", "gpt2"]]),
)  # fmt: skip
def test_any_command_line_is_an_answer_or_one_error_line(
    options: list[str], command: list[str]
) -> None:
    result = invoke(*command, *options)
    assert result.exit_code in (0, 2), (options, result)
    assert "Traceback" not in result.stdout + result.stderr
    if result.exit_code == 2 and "--json" not in options:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    if result.exit_code == 0 and "--json" in options:
        json.loads(result.stdout, parse_constant=lambda name: pytest.fail(name))


def test_sweep_arrays_are_checked_element_by_element() -> None:
    plan = Plan("gpt2", **GPT2_ON_ONE)
    frame = plan.sweep(sequence_length=np.array([512, 4096]))
    assert frame["problem"].iloc[0] == ""
    assert "positions" in frame["problem"].iloc[1]


def _subset(options: list[Any]) -> st.SearchStrategy[tuple[Any, ...]]:
    return st.lists(st.sampled_from(options), min_size=1, max_size=len(options), unique=True).map(
        tuple
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.builds(
        mlcost.parallel.SearchSpace,
        tensor_parallel=_subset([1, 2, 3, 4, 8, 16]),
        pipeline_parallel=st.one_of(st.none(), _subset([1, 2, 3, 5, 7, 100])),
        context_parallel=_subset([1, 2, 3, 4, 8]),
        micro_batch_sizes=st.one_of(st.none(), _subset([1, 2, 3, 5, 7, 64])),
        zero_stages=_subset([0, 1, 2, 3]),
        virtual_stages=_subset([1, 2, 3, 5]),
        sequence_parallel=_subset([False, True]),
        tp_overlap=_subset([False, True]),
        expert_parallel=st.one_of(st.none(), _subset([1, 2, 3, 8])),
    ),
    st.sampled_from(["gpt2", "mixtral-8x7b"]),
    st.sampled_from([1, 3, 7, 8, 64]),
    st.integers(1, 2),
)
def test_search_spaces_give_layouts_or_one_line_errors(
    space: Any, model: str, global_batch: int, nodes: int
) -> None:
    # Any combination of options, including ones the rules leave empty (interleaving without
    # pipeline stages, a micro-batch dividing no replica's batch, expert degrees dividing no
    # data-parallel degree): ranked layouts or mlcost's own one-line error.
    config = TrainingConfig(sequence_length=512)
    options = {"config": config, "nodes": nodes, "space": space, "use_all_gpus": False,
               "keep_unfit": True, "top": 5}  # fmt: skip
    found = _answer(lambda: mlcost.parallel.search(model, "dgx-h100", global_batch, **options))
    if found is not None:
        assert len(found.frame) <= 5 and np.isfinite(found.frame["memory_GiB"]).all()
        step = found.frame["step_s"].to_numpy()
        assert np.isfinite(step).all() and (step > 0).all()


# ----- issue 65: the Python building blocks and the output rule --------------------------------
LLAMA = "llama-2-7b"
H100 = "h100-sxm5-80gb"


def _q(value: float, unit: str) -> Any:
    return mlcost.Q_(value, unit)


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        # wrong types reached attribute lookups (raw AttributeError)
        (lambda: mlcost.memory_breakdown(LLAMA, TrainingConfig(), H100, {"dp": 0}), "dp"),
        (lambda: mlcost.memory_breakdown(LLAMA, "bf16", H100), "config: got str"),
        (lambda: mlcost.operators(LLAMA, 3), "config: got int"),
        (lambda: mlcost.training_flops(LLAMA, None, [1, 2]), "layout: got list"),
        (lambda: mlcost.multi_gpu_step_time(LLAMA, TrainingConfig(), "dgx-h100", 8), "layout"),
        (lambda: Plan("gpt2", gpu=H100, gpus=1, layout="dp=1"), "layout: got str"),
        (lambda: mlcost.describe(5), "spec: got int"),
        (lambda: from_hf_config([1, 2]), "config: got list"),
        (lambda: mlcost.collective_time("dgx-h100", "all-reduce", "1 GB", ranks=2.5), "ranks"),
        # zeros reached a division (raw ZeroDivisionError)
        (lambda: mlcost.search(LLAMA, "dgx-h100", 8, space=_space(tensor_parallel=(0,))),
         "tensor_parallel"),
        (lambda: _space(micro_batch_sizes=(-1,)).checked(), "micro_batch_sizes"),
        (lambda: mlcost.search("gpt2", "dgx-h100", 8, space=_space(zero_stages=())), "zero_stages"),
        # a plan changed what it was asked (100 became 128; 0 became the default 4,096)
        (lambda: Plan("gpt2", gpu=H100, gpus=8, layout=Layout(dp=8, micro_batch_size=4),
                      global_batch_size=100), "expected a multiple of dp x micro_batch_size"),
        (lambda: Plan("gpt2", gpu=H100, gpus=8, global_batch_size=0), "global_batch_size"),
        (lambda: Plan("gpt2", gpu=H100, gpus=8,
                      layout=Layout(dp=8, micro_batch_size=4, global_batch_size=64),
                      global_batch_size=128), "the layout runs 64"),
        # beyond the model's structure
        (lambda: Plan(LLAMA, system="dgx-h100", layout=Layout(dp=8, ep=2)), "dense"),
        (lambda: Plan("mixtral-8x7b", system="dgx-h100", layout=Layout(dp=8, ep=8, tp=1),
                      gpus=8).run, ""),  # 8 experts over 8: accepted (checked in the next test)
        # fine-tuning semantics
        (lambda: mlcost.training_flops(LLAMA, TrainingConfig(
            finetune=mlcost.FineTuning(method="lora", rank=100_000))), "rank: got 100000"),
        (lambda: mlcost.training_flops(LLAMA, TrainingConfig(
            finetune=mlcost.FineTuning(frozen=("embeddings", "lm_head", "norms"),
                                       frozen_layers=32))), "freezes every parameter"),
        (lambda: mlcost.training_flops("gpt2", TrainingConfig(
            finetune=mlcost.FineTuning(method="lora", target_modules=("gate_proj",)))),
         "gate_proj"),
        (lambda: mlcost.training_flops("deepseek-v3", TrainingConfig(
            finetune=mlcost.FineTuning(method="lora", target_modules=("v_proj",)))), "v_proj"),
        # serving semantics
        (lambda: mlcost.ServePlan("bert-base", gpu=H100, prompt=128, output=16), "encoder"),
        (lambda: mlcost.ServePlan("llama-3-8b", gpu=H100, draft="gpt2", acceptance=0.7),
         "vocabulary"),
        # issue 63: pipeline stages and the search's degrees
        (lambda: mlcost.ServePlan("llama-3-8b", system="dgx-h100", pp=33), "pp: got 33"),
        (lambda: mlcost.ServePlan("llama-3-8b", system="dgx-h100", tp=8, pp=2), "--nodes 2"),
        (lambda: _slo().search_slo("gpt2", ttft="1 s", tpot="1 s", pp=(0,)), "pp"),
        (lambda: _slo().search_slo("gpt2", ttft="1 s", tpot="1 s", max_nodes=0), "max_nodes"),
        (lambda: _workload().check_pipeline_stages(mlcost.model("gpt2"), 2.5), "pp: got 2.5"),
        # building blocks: negative, NaN, zero
        (lambda: _collectives().ring_allreduce_time(_q(-14, "GB"), 8, _q(100, "GB/s")), "size"),
        (lambda: _collectives().ring_allreduce_time(_q(math.nan, "GB"), 8, _q(100, "GB/s")),
         "size"),
        (lambda: _collectives().point_to_point_time(_q(1, "GB"), _q(0, "GB/s")), "bandwidth"),
        (lambda: _collectives().broadcast_time(_q(1, "GB"), 8, _q(1, "GB/s"), _q(-1, "s")),
         "latency"),
        (lambda: mlcost.collective_time("dgx-h100", "all-reduce", _q(-14, "GB")), "size"),
        (lambda: _kv().kv_cache_bytes("llama-3-8b", -5), "context"),
        (lambda: _kv().kv_cache_bytes("llama-3-8b", 100, -1), "batch"),
        (lambda: _kv().kv_cache_bytes("llama-3-8b", 100, tensor_parallel=0), "tensor_parallel"),
        (lambda: _kv().kv_cache_bytes("llama-3-8b", 100, block_size=0), "block_size"),
        (lambda: _kv().kv_cache_bytes("resnet-50", 100), "transformer"),
    ],
)  # fmt: skip
def test_issue_65_examples_are_refused_with_their_field(call: Any, fragment: str) -> None:
    if fragment == "":
        call()  # accepted: the counterpart of a refused case
        return
    with pytest.raises(MlcostError) as caught:
        call()
    assert fragment in str(caught.value)
    assert "\n" not in str(caught.value)


def _helpers() -> dict[str, Any]:
    """The formula helpers that take plain numbers (issue 65, deliver 1: public building blocks
    check what they are given)."""
    from mlcost.memory.breakdown import in_flight_micro_batches
    from mlcost.published import megatron_flops
    from mlcost.serving.latency import (
        batching_iteration_seconds,
        closed_loop_steady_state,
        closed_loop_time_to_first_token,
        expert_parallel_seconds,
        mean_context,
        prefill_share,
        prompts_per_prefill,
        time_to_first_token,
    )
    from mlcost.serving.slo import batch_grid
    from mlcost.serving.workload import touched_expert_fraction
    from mlcost.workload.attention import attention_pairs

    return {
        "mean_context": mean_context, "prompts_per_prefill": prompts_per_prefill,
        "prefill_share": prefill_share, "time_to_first_token": time_to_first_token,
        "batching_iteration_seconds": batching_iteration_seconds, "batch_grid": batch_grid,
        "touched_expert_fraction": touched_expert_fraction, "megatron_flops": megatron_flops,
        "in_flight_micro_batches": in_flight_micro_batches, "attention_pairs": attention_pairs,
        "closed_loop_time_to_first_token": closed_loop_time_to_first_token,
        "closed_loop_steady_state": closed_loop_steady_state,
        "expert_parallel_seconds": expert_parallel_seconds,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("name", "args", "kwargs", "fragment"),
    [
        ("mean_context", (1024, 0), {}, "output"),
        ("mean_context", (-1, 128), {}, "prompt"),
        ("prompts_per_prefill", (0, 512), {}, "prefill_tokens"),
        ("prompts_per_prefill", (8192, math.nan), {}, "prompt"),
        ("prefill_share", (0.01, 0.0, 64, 128), {}, "iteration"),
        ("prefill_share", (-0.01, 0.02, 64, 128), {}, "prefill"),
        ("time_to_first_token", (0.01, -0.02, 0.03, 64, 128), {}, "step"),
        ("time_to_first_token", (0.01, 0.02, 0.03, 64, 0), {}, "output"),
        ("batching_iteration_seconds", (0.02, 1e-5, -8, 512, 128), {}, "batch"),
        ("batch_grid", (0,), {}, "largest"),
        ("touched_expert_fraction", ("mixtral-8x7b", -1), {}, "tokens"),
        ("megatron_flops", (8, 2048, 0, 4096, 50257), {}, "layers"),
        ("in_flight_micro_batches", (0, 8), {}, "stages"),
        ("in_flight_micro_batches", (4, 0.5), {}, "micro_batches"),
        ("attention_pairs", (math.inf,), {"causal": True}, "sequence_length"),
        ("attention_pairs", (4096,), {"causal": True, "window": 0}, "window"),
        ("closed_loop_time_to_first_token", (0.4, 0.02, 0, 500), {}, "users"),
        ("closed_loop_time_to_first_token", (math.nan, 0.02, 5, 500), {}, "prefill"),
        ("closed_loop_time_to_first_token", (0.4, 0.02, 5, 0), {}, "output"),
        ("closed_loop_steady_state", (0.4, 0.0, 0.3, 10, 500), {}, "step"),
        ("closed_loop_steady_state", (0.4, 0.02, 0.3, 2.5, 500), {}, "users"),
        ("expert_parallel_seconds", ("dgx-h200", 8, 4096, 94, -1, 8), {}, "tokens"),
        ("expert_parallel_seconds", ("dgx-h200", 8, 4096, 94, 256, 0), {}, "top_k"),
    ],
)  # fmt: skip
def test_formula_helpers_refuse_numbers_outside_physics(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any], fragment: str
) -> None:
    if name == "touched_expert_fraction":
        args = (default_catalog().model(args[0]), *args[1:])
    if name == "expert_parallel_seconds":
        plan = mlcost.ServePlan("qwen3-235b-a22b", system=args[0], tp=8, weights="fp8")
        args = (plan.resolved_system, *args[1:])
    with pytest.raises(MlcostError) as caught:
        _helpers()[name](*args, **kwargs)
    assert str(caught.value).startswith(f"{fragment}: got")
    assert "\n" not in str(caught.value)


def test_formula_helpers_still_answer_in_range() -> None:
    """The counterparts by hand: causal pairs of 4 tokens are 4·5/2 = 10; 1F1B on 4 stages with
    8 micro-batches holds 4, 3, 2, 1; every batch up to 64 is in the grid."""
    helpers = _helpers()
    assert helpers["attention_pairs"](4, causal=True) == 10
    held = helpers["in_flight_micro_batches"](4, 8)
    assert np.asarray(held).ravel().tolist() == [4, 3, 2, 1]
    assert list(helpers["batch_grid"](64)) == list(range(1, 65))


def _space(**options: Any) -> Any:
    from mlcost.parallel.search import SearchSpace

    return SearchSpace(**options)


def _collectives() -> Any:
    from mlcost.comms import collectives

    return collectives


def _kv() -> Any:
    from mlcost.serving import kv_cache

    return kv_cache


def _slo() -> Any:
    from mlcost.serving import slo

    return slo


def _workload() -> Any:
    from mlcost.serving import workload

    return workload


def test_a_dict_of_fields_is_taken_where_a_record_is() -> None:
    """The boundary builds a record from a dict (its validators run), so the same answer."""
    as_dict = mlcost.memory_breakdown(LLAMA, {"sequence_length": 1024}, H100, {"dp": 1})
    as_records = mlcost.memory_breakdown(
        LLAMA, TrainingConfig(sequence_length=1024), H100, Layout(dp=1)
    )
    assert as_dict.total == as_records.total


def test_lora_ranks_fit_the_layer_at_the_limit() -> None:
    """Llama 2 7B's q_proj and v_proj are 4,096 x 4,096 (hidden size 4,096, 32 heads of 128):
    rank 4,096 is the largest that fits, 4,097 is refused."""
    from mlcost.finetune import FineTuning, check_finetuning

    model = mlcost.model(LLAMA)
    check_finetuning(model, FineTuning(method="lora", rank=4096))
    with pytest.raises(MlcostError, match="at most 4096"):
        check_finetuning(model, FineTuning(method="lora", rank=4097))


def test_latent_attention_linears_are_lora_targets() -> None:
    """DeepSeek-V3 (config.json on the Hugging Face hub: hidden 7,168, 128 heads, q_lora_rank
    1,536, kv_lora_rank 512, qk_nope 128, qk_rope 64, v_head 128): kv_b_proj is 512 -> 128 x
    (128 + 128) = 32,768, so a rank-8 adapter on it has 8 x (512 + 32,768) parameters."""
    from mlcost.finetune import FineTuning, latent_attention_linears, targeted_linears

    model = mlcost.model("deepseek-v3")
    widths = {m.name: (m.d_in, m.d_out) for m in latent_attention_linears(model)}
    assert widths["kv_b_proj"] == (512, 32_768)
    assert widths["q_a_proj"] == (7168, 1536)
    assert widths["kv_a_proj_with_mqa"] == (7168, 512 + 64)
    chosen = targeted_linears(model, FineTuning(method="lora", target_modules=("kv_b_proj",)))
    assert [m.lora_parameters(8) for m in chosen] == [8 * (512 + 32_768)]


def test_report_mode_says_when_the_published_hours_disagree() -> None:
    """Llama 2 7B on its compute-optimal tokens (20 per parameter, Hoffmann et al. 2022: 135B)
    at 6·N·D = 5.4e21 FLOPs on H100s (989 TFLOP/s dense BF16 each) needs more than 1,500
    GPU-hours even at full peak; one published GPU-hour is answered (the figures use it) and
    said, in the figures, in explain() and as a ReportModeWarning."""
    from mlcost.plan import ReportModeWarning

    plan = Plan(LLAMA, system="dgx-h100", gpu_hours=1)
    with pytest.warns(ReportModeWarning, match="this plan predicts"):
        trained = plan.train()
    assert trained["predicted GPU-hours"].to("hour").magnitude > 6 * 6.74e9 * 20 * 6.74e9 / (
        989e12 * 3600
    )
    assert "WARNING: gpu_hours: got 1 GPU-hours" in plan.explain()
    near = Plan(LLAMA, system="dgx-h100")
    hours = near.train()["GPU-hours"].to("hour").magnitude
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReportModeWarning)
        Plan(LLAMA, system="dgx-h100", gpu_hours=hours * 1.5).train()  # within the factor


def test_explain_shows_an_unknown_price_as_unknown_not_nan() -> None:
    text = Plan(LLAMA, system="dgx-a100", failures=False).explain()
    assert "unknown USD/h" in text
    assert not re.search(r"(?<![\w.])nan(?!\w)", text, re.IGNORECASE)


def test_a_profile_above_the_datasheet_and_visible_memory_above_memory_are_refused() -> None:
    root = Path(__file__).resolve().parents[2]
    measured = (root / "specs/measured/h200-sxm-141gb-measured.yaml").read_text()
    with pytest.raises(SpecError, match="x the datasheet peak"):
        load_spec_text(measured.replace("efficiency: 0.0015539736238891473", "efficiency: 1.5"))
    h100 = (root / "specs/accelerators/h100-sxm5-80gb.yaml").read_text()
    with pytest.raises(SpecError, match="memory_visible: got 100 GiB, above memory_capacity"):
        load_spec_text(h100.replace("memory_visible: 81559 MiB", "memory_visible: 100 GiB"))


# ----- the output rule (mlcost.io) and inputs that are not files ------------------------------
def test_an_existing_file_is_never_replaced_without_force(tmp_path: Path) -> None:
    from mlcost.io import write_output

    target = tmp_path / "out.csv"
    write_output(target, "a\n", suffixes=(".csv",))
    with pytest.raises(MlcostError, match="exists"):
        write_output(target, "b\n", suffixes=(".csv",))
    assert target.read_text() == "a\n"
    write_output(target, "c\n", suffixes=(".csv",), force=True)
    assert target.read_text() == "c\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~_umask()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]  # no temporary left


def test_an_input_is_never_an_output_even_with_force(tmp_path: Path) -> None:
    from mlcost.io import write_output

    spec = tmp_path / "model.yaml"
    spec.write_text("kind: transformer\n")
    link = tmp_path / "same.yaml"
    os.link(spec, link)
    for target in (spec, link):
        with pytest.raises(MlcostError, match="also an input"):
            write_output(target, "x", suffixes=(".yaml",), force=True, inputs=(spec,))
    assert spec.read_text() == "kind: transformer\n"


@pytest.mark.parametrize(
    ("name", "fragment"),
    [("figure.txt", "expected .png"), ("missing/figure.png", "does not exist"), ("", "empty")],
)
def test_a_wrong_extension_or_a_missing_folder_is_refused(
    tmp_path: Path, name: str, fragment: str
) -> None:
    from mlcost.io import write_output

    target = tmp_path / name if name else ""
    with pytest.raises(MlcostError, match=fragment):
        write_output(target, b"\x89PNG", suffixes=(".png",))
    assert not (tmp_path / "missing").exists()


def test_two_writers_racing_for_one_name_one_wins(tmp_path: Path) -> None:
    """Check and write are one step: the name is taken by a hard link, which fails if it
    exists, so of writers that all passed the check exactly one writes and the others are
    refused (what two concurrent 'mlcost calibrate --out P' runs meet)."""
    from concurrent.futures import ThreadPoolExecutor

    from mlcost.io import check_output, write_output

    target = tmp_path / "profile.yaml"
    check_output(target, suffixes=(".yaml",))  # every writer's early check passes

    def write(index: int) -> str:
        try:
            write_output(target, f"writer {index}\n", suffixes=(".yaml",))
        except MlcostError as error:
            return str(error)
        return "wrote"

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(write, range(8)))
    assert answers.count("wrote") == 1, answers
    assert all("exists" in a or "created by someone else" in a for a in answers if a != "wrote")
    assert target.read_text().startswith("writer ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["profile.yaml"]


@pytest.mark.parametrize("kind", ["fifo", "device", "folder", "huge"])
def test_inputs_that_are_not_files_are_refused_without_blocking(tmp_path: Path, kind: str) -> None:
    from mlcost.io import MAX_INPUT_BYTES
    from mlcost.specs import load_spec

    path = tmp_path / "spec.yaml"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "huge":
        with open(path, "wb") as stream:
            stream.truncate(MAX_INPUT_BYTES + 1)
    else:
        path = Path("/dev/zero")
    fragment = {"fifo": "not a regular file", "device": "not a regular file",
                "folder": "is a folder", "huge": "larger than"}[kind]  # fmt: skip
    with pytest.raises(SpecError, match=fragment):
        load_spec(path)


def test_a_gzip_bomb_trace_is_refused_unpacked_no_further(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gzip

    from mlcost import trace

    monkeypatch.setattr(trace, "MAX_TRACE_TEXT_BYTES", 2**20)
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(b" " * (4 * 2**20)))
    with pytest.raises(MlcostError, match="unpacks to more than"):
        trace.load_trace_json(bomb)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
