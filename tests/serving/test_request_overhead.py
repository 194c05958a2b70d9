"""The serving front end's time per request (``Engine.request_overhead``, issue 63): on every
first token's path and off the GPU's, so it adds to TTFT and to a closed-loop client's cycle,
never to a queue's service time nor to the decode iteration. Expected values derived by hand in
each test."""

from __future__ import annotations

import pytest

import mlcost
from mlcost.serving.latency import closed_loop_steady_state, closed_loop_time_to_first_token
from mlcost.specs import Catalog
from mlcost.units import Q_


def test_closed_loop_front_end_by_hand() -> None:
    """Two clients, S = 0.4 s, iteration 0.02 s, O = 500, front end F = 0.006 s. The front end
    is a delay: Z = 499 x 0.02 + 0.006 = 9.986 s; Q(1) = 0.4 / (0.4 + 9.986); R(2) = 0.4 x (1 +
    Q(1)); TTFT = R(2) + F = 0.4 x (1 + 0.4 / 10.386) + 0.006 = 0.421405... s. One client: S + F
    = 0.406 s. No decode phase (O = 1), five clients: the recursion with Z = F alone, R(n) = S
    (1 + Q(n-1)), Q(n) = n R(n) / (R(n) + F), written out below."""
    f = 0.006
    assert closed_loop_time_to_first_token(0.4, 0.02, 1, 500, f) == pytest.approx(0.406)
    r2 = 0.4 * (1 + 0.4 / (0.4 + 499 * 0.02 + f)) + f
    assert r2 == pytest.approx(0.421405353)
    assert closed_loop_time_to_first_token(0.4, 0.02, 2, 500, f) == pytest.approx(r2, rel=1e-12)
    q, r = 0.0, 0.0
    for n in range(1, 6):
        r = 0.4 * (1 + q)
        q = n * r / (r + f)
    assert closed_loop_time_to_first_token(0.4, 0.02, 5, 1, f) == pytest.approx(r + f, rel=1e-12)


def test_closed_loop_steady_state_keeps_its_laws_with_a_front_end() -> None:
    """The response-time law with the front end inside TTFT: N = X (TTFT + (O - 1) I); the
    iteration still carries only the prefills arriving during it, I = step + X I s_p; and a
    front end lowers the request rate (a longer cycle), so the iteration, at most equal."""
    it0, _, rate0 = (float(v) for v in closed_loop_steady_state(0.4, 0.02, 0.3, 10, 500))
    it, ttft, rate = (
        float(v) for v in closed_loop_steady_state(0.4, 0.02, 0.3, 10, 500, frontend=0.05)
    )
    assert rate * (ttft + 499 * it) == pytest.approx(10, rel=1e-12)
    assert it == pytest.approx(0.02 + rate * it * 0.3, rel=1e-6)
    assert ttft == pytest.approx(closed_loop_time_to_first_token(0.4, it, 10, 500, 0.05))
    assert rate < rate0 and it <= it0


@pytest.mark.parametrize("arrivals", ["poisson", "closed-loop"])
def test_front_end_adds_to_the_first_token_only(catalog: Catalog, arrivals: str) -> None:
    """Llama-3-8B on an H100 under TensorRT-LLM with and without a 6 ms front end. Poisson
    arrivals at a given batch: the iteration, TPOT and throughput are those of the GPU, the
    same; TTFT exactly 6 ms more. One closed-loop client: TTFT = its prefill + 6 ms (no queue);
    the prefill, a GPU time, is the same."""
    engine = catalog.engine("tensorrt-llm")
    off = engine.model_copy(update={"request_overhead": None})
    on = engine.model_copy(update={"request_overhead": Q_(6, "ms")})
    batch = 1 if arrivals == "closed-loop" else 32
    args = {"gpu": "h100-sxm5-80gb", "prompt": 1024, "output": 256, "batch": batch,
            "arrivals": arrivals}  # fmt: skip
    a = mlcost.ServePlan("llama-3-8b", engine=off, **args).timing(batch)  # type: ignore[arg-type]
    b = mlcost.ServePlan("llama-3-8b", engine=on, **args).timing(batch)  # type: ignore[arg-type]
    assert float(b["prefill"]) == float(a["prefill"])
    if arrivals == "poisson":
        assert float(b["iteration"]) == float(a["iteration"])
        assert float(b["ttft"]) - float(a["ttft"]) == pytest.approx(6e-3, rel=1e-9)
    else:
        assert float(b["ttft"]) == pytest.approx(float(b["prefill"]) + 6e-3, rel=1e-12)
        assert float(a["ttft"]) == pytest.approx(float(a["prefill"]), rel=1e-12)


def test_disaggregated_budget_takes_the_front_end(catalog: Catalog) -> None:
    """Disaggregated prefill and decode: the prefill pool's load fills the TTFT budget left after
    the prefill S, the KV transfer T, half a step and the front end F, W = target - S - T -
    step/2 - F, rho = 2x / (1 + 2x) with x = W / S (by hand from the plan's own S, T, step)."""
    engine = catalog.engine("tensorrt-llm").model_copy(update={"request_overhead": Q_(20, "ms")})
    plan = mlcost.ServePlan(
        "llama-3-8b", system="dgx-h100", prompt=1024, output=256, batch=32, engine=engine,
        disaggregated=True, ttft="450ms",
    )  # fmt: skip
    t = plan.timing(32)
    s, step = float(t["prefill"]), float(t["step"])
    x = (0.45 - s - plan.kv_transfer_seconds - step / 2 - 0.02) * (1 - 1e-9) / s
    assert float(t["prefill_pool_load"]) == pytest.approx(2 * x / (1 + 2 * x), rel=1e-9)


def test_tensorrt_llm_front_end_is_the_median_single_client_excess(catalog: Catalog) -> None:
    """The profile's 6.0 ms is the median of what NVIDIA NIM's two single-client TTFT rows
    (published: 406.77 and 47.77 ms) exceed mlcost's prediction without a front end by; one
    client queues behind nobody, so each prediction without it is the prefill alone."""
    from mlcost.serving.published import predict_serving_case, serving_cases

    engine = catalog.engine("tensorrt-llm")
    without = {"tensorrt-llm": engine.model_copy(update={"request_overhead": None})}
    rows = [c for c in serving_cases() if c["family"] == "nim" and int(c["load"]) == 1
            and c["quantity"] == "time to first token"]  # fmt: skip
    assert sorted(float(c["value"]) for c in rows) == [47.77, 406.77]
    excess = sorted(
        float(c["value"]) - predict_serving_case(c, without, calibrated=False) for c in rows
    )
    assert engine.request_seconds * 1e3 == pytest.approx(sum(excess) / 2, abs=0.01)
    assert all(catalog.engine(n).request_overhead is None for n in ("vllm", "hf-generate"))
