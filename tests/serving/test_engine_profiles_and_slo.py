"""Engine profiles (issue 63) and the search for the cheapest configuration meeting a latency
target: relations derived by hand, the search's choice against every configuration it saw, and
bad input as one line (exit status 2 on the command line)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import mlcost
from mlcost.errors import MlcostError
from mlcost.serving.band import serving_latency_band
from mlcost.serving.latency import forward_seconds, serving_ceilings
from mlcost.serving.slo import batch_grid, search_slo
from mlcost.serving.workload import decode_operators
from mlcost.specs import Catalog
from mlcost.units import Q_
from tests.cli.conftest import invoke

ENGINES = ("vllm", "tensorrt-llm", "sglang", "hf-generate")


@pytest.mark.parametrize("name", ENGINES)
def test_every_engine_profile_loads_with_its_sources(catalog: Catalog, name: str) -> None:
    engine = catalog.engine(name)
    assert engine.unsourced_paths() == []
    assert engine.attention_kernels and engine.weight_formats and engine.kv_formats


def test_step_overhead_adds_once_per_engine_step(catalog: Catalog) -> None:
    # The engine's host work between steps is waited for once per engine step, not per forward:
    # a forward costs the same with or without it; a decode step (with the prefill chunks it
    # carries) and a speculative round (k drafts and a verification) cost exactly one
    # step_overhead more; the prompt tokens a decode iteration admits cost nothing more (they
    # ride in its step); a prompt's own prefill is one step more.
    model = mlcost.model("llama-3-8b")
    gpu = catalog.accelerator("h100-sxm5-80gb")
    ceilings = serving_ceilings(gpu)
    plain = catalog.engine("tensorrt-llm")  # no step_overhead
    with_step = plain.model_copy(update={"step_overhead": Q_(1.4, "ms")})
    table = decode_operators(model, 64, 1024)
    a = forward_seconds(table, ceilings, plain, layers=32, graph=True)
    b = forward_seconds(table, ceilings, with_step, layers=32, graph=True)
    assert float(b) == float(a)
    for draft in (None, "llama-3.2-1b"):
        spec = {"draft": draft, "acceptance": 0.7} if draft else {}
        without = mlcost.ServePlan("llama-3-8b", gpu=gpu, engine=plain, **spec).timing(64)
        with_ = mlcost.ServePlan("llama-3-8b", gpu=gpu, engine=with_step, **spec).timing(64)
        assert float(with_["step"]) - float(without["step"]) == pytest.approx(1.4e-3)
        assert float(with_["prefill"]) - float(without["prefill"]) == pytest.approx(1.4e-3)
        assert float(with_["per_prompt_token"]) == pytest.approx(float(without["per_prompt_token"]))


def test_engine_refuses_a_format_it_does_not_serve() -> None:
    with pytest.raises(MlcostError) as error:
        mlcost.ServePlan("llama-3-8b", gpu="h100-sxm5-80gb", kv_format="fp8", engine="hf-generate")
    message = str(error.value)
    assert "\n" not in message and "kv_format" in message and "hf-generate" in message


def test_engine_caps_the_batch() -> None:
    # Llama-3-8B in FP8 with an FP8 cache on an H200, 128 + 128 tokens a sequence: the KV cache
    # holds 135.7 GB x 0.9... far more than 1024 sequences of 256 x 64 KiB; vLLM schedules at
    # most max_num_seqs = 1024 of them, TensorRT-LLM max_batch_size = 2048.
    args = {"gpu": "h200-sxm-141gb", "weights": "fp8", "kv_format": "fp8", "prompt": 128,
            "output": 128}  # fmt: skip
    vllm = mlcost.ServePlan("llama-3-8b", **args)
    assert vllm.memory["max_batch"] > 2048
    assert vllm.largest_batch == 1024
    assert mlcost.ServePlan("llama-3-8b", engine="tensorrt-llm", **args).largest_batch == 2048


def test_static_batch_of_hf_generate() -> None:
    # A static batch: the b prompts prefilled together, then O decode steps; a token every
    # step (TPOT = the step), the first token after the batch's prefill, and b x O tokens per
    # prefill + O steps.
    plan = mlcost.ServePlan("llama-3-8b", gpu="h100-sxm5-80gb", prompt=512, output=128,
                            batch=8, engine="hf-generate")  # fmt: skip
    t = plan.timing(8)
    assert float(t["tpot"]) == pytest.approx(float(t["step"]))
    assert float(t["ttft"]) == pytest.approx(float(t["prefill"]))
    expected = 8 * 128 / (float(t["prefill"]) + 128 * float(t["step"]))
    assert float(t["output_rate"]) == pytest.approx(expected)


def test_batch_grid_is_dense_then_geometric() -> None:
    grid = batch_grid(1024)
    assert list(grid[:64]) == list(range(1, 65)) and grid[-1] == 1024
    assert np.all(np.diff(grid) > 0) and np.max(grid[64:] / grid[63:-1]) < 1.1
    assert list(batch_grid(5)) == [1, 2, 3, 4, 5]


@pytest.fixture(scope="module")
def search() -> mlcost.serving.slo.SloSearch:
    return search_slo("llama-3-70b", ttft="500 ms", tpot="50 ms")


def test_the_choice_meets_the_target_with_the_band_margin(search: object) -> None:
    from mlcost.serving.slo import SloSearch

    assert isinstance(search, SloSearch)
    best = search.chosen
    assert best is not None
    high = serving_latency_band().high
    assert best.ttft_ms * high <= 500 and best.tpot_ms * high <= 50
    # The plan of the chosen configuration, built anew on its nodes (with the TTFT target less
    # the band's margin, which sizes a disaggregated prefill pool), predicts what the search
    # reported.
    plan = mlcost.ServePlan(
        "llama-3-70b", system=mlcost.system(best.gpu, nodes=best.nodes), tp=best.tp,
        pp=best.pp, weights=best.weights, kv_format=best.kv_format, engine=best.engine,
        disaggregated=best.disaggregated, batch=best.batch, ttft=f"{500 / high} ms",
    )  # fmt: skip
    row = plan.row()
    assert row["tpot_ms"] == pytest.approx(best.tpot_ms)
    assert row["ttft_ms"] == pytest.approx(best.ttft_ms)
    assert row["gpus"] == best.gpus


def test_no_configuration_seen_is_cheaper_and_the_front_is_not_dominated(search: object) -> None:
    from mlcost.serving.slo import SloSearch

    assert isinstance(search, SloSearch)
    best = search.chosen
    assert best is not None
    assert all(c.usd_per_m_output >= best.usd_per_m_output for c in search.feasible)
    second = search.runner_up
    assert second is not None and second.usd_per_m_output >= best.usd_per_m_output
    assert (second.gpu, second.tp, second.pp, second.weights, second.kv_format) != (
        best.gpu, best.tp, best.pp, best.weights, best.kv_format)  # fmt: skip
    assert "runner-up" in search.why_runner_up_lost()
    front = search.pareto()
    for c in front:
        assert not any(o.tpot_ms < c.tpot_ms and o.usd_per_m_output < c.usd_per_m_output
                       for o in search.feasible)  # fmt: skip
    assert front[-1] is best or front[-1].usd_per_m_output == best.usd_per_m_output


def test_a_target_no_configuration_meets() -> None:
    result = search_slo("llama-3-70b", ttft="1 ms", tpot="50 ms", gpus=["h100-sxm5-80gb"])
    assert result.chosen is None and result.runner_up is None
    assert "none meets" in result.summary().iloc[0]["value"]


def test_rate_prices_the_deployment_per_hour() -> None:
    # With a rate, a configuration needs ceil(rate / its requests per second) replicas of tp
    # GPUs; the choice is the cheapest per hour.
    result = search_slo("llama-3-8b", ttft="500 ms", tpot="50 ms", rate=50,
                        gpus=["h100-sxm5-80gb", "h200-sxm-141gb"])  # fmt: skip
    best = result.chosen
    assert best is not None and best.gpus % best.tp == 0
    assert all(c.usd_per_hour >= best.usd_per_hour for c in result.feasible)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["--ttft", "-5ms", "--tpot", "50ms"], "ttft"),
        (["--ttft", "500", "--tpot", "50ms"], "--ttft"),
        (["--gpu", "h100-sxm5-80gb", "--tpot", "50ms", "--plot", "x.png"], "--plot"),
        # issue 63: pipeline stages and nodes
        (["--gpu", "h100-sxm5-80gb", "--tp", "8", "--pp", "2"], "--nodes 2"),
        (["--pp", "0"], "--pp: got '0'"),
        (["--pp", "33"], "pp: got 33"),
        (["--nodes", "0"], "--nodes: got '0'"),
        (["--gpu", "rtx-4090", "--nodes", "2"], "cannot be joined"),
        (["--pp", "2", "--disaggregated"], "pp: got 2"),
        (["--ttft", "500ms", "--tpot", "50ms", "--tp", "3"], "tp: got 3"),
    ],
)
def test_cli_bad_slo_input_one_line_exit_2(args: list[str], field: str) -> None:
    result = invoke("serve", "llama-3-8b", *args)
    assert result.exit_code == 2
    line = result.stderr.strip()
    assert "\n" not in line and field in line


def test_cli_search_json() -> None:
    result = invoke("serve", "llama-3-8b", "--ttft", "500ms", "--tpot", "50ms", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["pareto"] and all(math.isfinite(c["usd_per_m_output"]) for c in data["pareto"])
    names = [f["name"] for f in data["figures"]]
    assert names[0] == "chosen" and "runner-up" in names


def test_disaggregated_layouts_in_the_search() -> None:
    # More candidates can only lower the cheapest cost; a disaggregated choice pays for its
    # prefill pool, so its GPUs are twice its decode replica's.
    args = {"ttft": "500 ms", "tpot": "50 ms", "gpus": ["h100-sxm5-80gb", "h200-sxm-141gb"]}
    aggregated = search_slo("llama-3-70b", layouts=(False,), **args)
    both = search_slo("llama-3-70b", **args)  # both layouts by default
    assert aggregated.chosen is not None and both.chosen is not None
    assert both.chosen.usd_per_m_output <= aggregated.chosen.usd_per_m_output
    assert any(c.disaggregated for c in both.feasible)
    apart = next(c for c in both.feasible if c.disaggregated)
    assert apart.gpus == 2 * apart.tp and "disaggregated" in apart.label


def test_an_attention_kernel_without_gqa_reads_every_kv_head_per_query_head() -> None:
    # Llama-3-8B, one sequence with 4096 tokens cached, BF16: the scores read the cached keys,
    # 4096 x 8 KV heads x 128 x 2 bytes = 8,388,608 bytes a layer with a GQA-aware kernel, and
    # 32 / 8 = 4 times that with one that reads them once per query head; the query itself is
    # 32 x 128 x 2 = 8,192 bytes either way.
    model = mlcost.model("llama-3-8b")

    def scores(grouped: bool) -> float:
        table = decode_operators(model, 1, 4096, grouped_kv_reads=grouped)
        row = next(op for op in table.operators if op.name.startswith("attention scores QK^T"))
        return float(row.bytes_read)

    assert scores(True) == 8_192 + (4096 + 1) * 8 * 128 * 2
    assert scores(False) == 8_192 + 4 * (4096 + 1) * 8 * 128 * 2
    engine = mlcost.ServePlan("llama-3-8b", gpu="h100-sxm5-80gb").resolved_engine
    plain = engine.model_copy(update={"gqa_aware_attention": False})
    args = {"gpu": "h100-sxm5-80gb", "prompt": 4096, "output": 256, "batch": 16}
    aware = mlcost.ServePlan("llama-3-8b", **args).row()["tpot_ms"]
    unaware = mlcost.ServePlan("llama-3-8b", engine=plain, **args).row()["tpot_ms"]
    assert unaware > aware
