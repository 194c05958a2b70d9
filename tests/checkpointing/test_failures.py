"""Training checkpoints against failures: Young 1974, Daly 2006's worked examples, Llama 3's
failure counts, and properties of waste and goodput."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pint
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlcost.checkpointing import (
    LLAMA3_MTBF_PER_GPU,
    checkpoint_bytes,
    checkpoint_bytes_per_gpu,
    checkpoint_write_time,
    daly_interval,
    expected_failures,
    expected_wall_time,
    failure_probability,
    goodput,
    goodput_plan,
    lambert_w0,
    optimal_interval,
    storage_write_bandwidth,
    system_mtbf,
    waste_breakdown,
    waste_fraction,
    young_interval,
)
from mlcost.checkpointing.failures import checkpoint_state_bytes
from mlcost.errors import MlcostError
from mlcost.specs import default_catalog
from mlcost.units import Q_
from tests.conftest import under_test_env

DELTA = Q_(5, "minute")  # Daly 2006, Figs. 3-5: delta = 5 min, R = 10 min


# ----- Daly 2006's worked intervals ----------------------------------------------------------
@pytest.mark.parametrize(
    ("mtbf", "daly_min", "young_min", "digits"),
    [
        (Q_(24, "hour"), 117, 120, 0),  # Daly Fig. 3: "The new model predicts tau_opt = 117 min"
        (Q_(6, "hour"), 57, 60, 0),  # Fig. 4: 57 min
        (Q_(15, "minute"), 9.1, 12.2, 1),  # Fig. 5: 9.1 min; Young sqrt(2·5·15) = 12.25
    ],
)
def test_daly_2006_worked_intervals(
    mtbf: pint.Quantity, daly_min: float, young_min: float, digits: int
) -> None:
    # The paper prints whole minutes (and 9.1): compare at the paper's own rounding.
    assert round(daly_interval(DELTA, mtbf).to("minute").magnitude, digits) == daly_min
    young = young_interval(DELTA, mtbf).to("minute").magnitude
    assert round(young, digits) == pytest.approx(young_min, abs=0.051)


def test_daly_formula_by_hand() -> None:
    # M = 1440 min, delta = 5: sqrt(2·5·1440) = 120; delta/2M = 5/2880 = 1/576;
    # 120·(1 + (1/3)(1/24) + (1/9)(1/576)) - 5 = 120 + 1.666667 + 0.023148 - 5 = 116.689815.
    expected = 120 * (1 + 1 / 72 + 1 / 5184) - 5
    tau = daly_interval(DELTA, Q_(24, "hour")).to("minute").magnitude
    assert tau == pytest.approx(expected, rel=1e-12)
    # delta >= 2M: tau = M (Daly 2006, eq. 37's second case).
    assert daly_interval(Q_(3, "hour"), Q_(1, "hour")).to("hour").magnitude == pytest.approx(1)


def test_young_interval_by_hand() -> None:
    # sqrt(2 · 5 min · 1440 min) = sqrt(14400) = 120 min exactly.
    assert young_interval(DELTA, Q_(1, "day")).to("minute").magnitude == pytest.approx(120)


def test_exact_optimum_tends_to_young_for_small_checkpoints() -> None:
    # tau* = M(1 + W0(-e^-(1+x))) ~ sqrt(2·delta·M) - 2·delta/3 as delta/M -> 0 (series of W0
    # at -1/e). With delta/M = 1e-8 the correction is below 1e-4 relative.
    mtbf = Q_(1e8, "s")
    delta = Q_(1, "s")
    ratio = optimal_interval(delta, mtbf) / young_interval(delta, mtbf)
    assert ratio.to("").magnitude == pytest.approx(1, rel=1e-4)


def test_lambert_w_known_values() -> None:
    # W0(-1/e) = -1; W0(-ln2/2) = -ln 2 because (-ln 2)·e^(-ln 2) = -ln2/2; W0(0) = 0.
    values = lambert_w0(np.array([-1 / math.e, -math.log(2) / 2, 0.0]))
    np.testing.assert_allclose(values, [-1, -math.log(2), 0], atol=1e-7)
    # w·e^w = x over the whole branch (tolerance: double-precision Halley iteration).
    x = -np.linspace(1e-6, 1 / math.e, 200)
    w = lambert_w0(x)
    np.testing.assert_allclose(w * np.exp(w), x, rtol=1e-9, atol=1e-12)
    with pytest.raises(MlcostError):
        lambert_w0(0.5)


# ----- waste is minimized at the computed interval ------------------------------------------
def golden_section_minimum(f: Callable[[float], float], low: float, high: float) -> float:
    """A numeric minimizer written here, independent of the closed forms (on log tau)."""
    ratio = (math.sqrt(5) - 1) / 2
    a, b = math.log(low), math.log(high)
    for _ in range(200):
        c = b - ratio * (b - a)
        d = a + ratio * (b - a)
        if f(math.exp(c)) < f(math.exp(d)):
            b = d
        else:
            a = c
    return math.exp((a + b) / 2)


@settings(max_examples=60, deadline=None)
@given(
    mtbf_h=st.floats(min_value=0.1, max_value=1000),
    ratio=st.floats(min_value=1e-5, max_value=0.5),
    restart_min=st.floats(min_value=0, max_value=60),
)
def test_waste_is_minimized_at_the_computed_interval(
    mtbf_h: float, ratio: float, restart_min: float
) -> None:
    mtbf = Q_(mtbf_h, "hour")
    delta = mtbf * ratio
    restart = Q_(restart_min, "minute")

    def waste(tau_s: float) -> float:
        return float(waste_fraction(Q_(tau_s, "s"), delta, mtbf, restart))

    m_s = mtbf.to("s").magnitude
    numeric = golden_section_minimum(waste, m_s * 1e-6, m_s * 10)
    exact = optimal_interval(delta, mtbf).to("s").magnitude
    # The Lambert-W optimum is the minimizer (golden section converges to ~1e-7 relative on a
    # flat minimum; 1e-3 leaves room for the flatness of waste near its minimum).
    assert exact == pytest.approx(numeric, rel=1e-3)
    # Daly's eq. 37 is a perturbation series: within 0.6% of the optimum for delta/M <= 0.5
    # (the gap grows as (delta/M)^(3/2)), and its waste is within 1e-5 of the minimum.
    daly = daly_interval(delta, mtbf).to("s").magnitude
    assert daly == pytest.approx(exact, rel=6e-3)
    assert waste(daly) <= waste(exact) + 1e-5
    assert waste(exact) <= waste(exact * 1.05) and waste(exact) <= waste(exact / 1.05)


def test_goodput_and_wall_time_by_hand() -> None:
    # Daly's complete model at tau = 117 min, delta = 5, R = 10, M = 1440 min:
    # T_w/T_s = (1440/117)·e^(10/1440)·(e^(122/1440) - 1).
    tau, m = Q_(117, "minute"), Q_(24, "hour")
    expected = 117 / (1440 * math.exp(10 / 1440) * math.expm1(122 / 1440))
    assert goodput(tau, DELTA, m, Q_(10, "minute")) == pytest.approx(expected, rel=1e-12)
    wall = expected_wall_time(Q_(500, "hour"), tau, DELTA, m, Q_(10, "minute"))
    assert wall.to("hour").magnitude == pytest.approx(500 / expected, rel=1e-12)
    # First-order parts: 5/117 = 4.27% checkpoints, 122/2880 = 4.24% lost, 10/1440 = 0.69%.
    parts = waste_breakdown(tau, DELTA, m, Q_(10, "minute"))
    assert parts["checkpoint writes"] == pytest.approx(5 / 117)
    assert parts["lost work"] == pytest.approx(122 / 2880)
    assert parts["restarts"] == pytest.approx(10 / 1440)


# ----- failures --------------------------------------------------------------------------------
def test_llama3_mtbf() -> None:
    # Dubey et al. 2024, section 3.3.4: 419 unexpected interruptions in 54 days on 16,384 GPUs.
    # Job MTBF = 54·24/419 = 3.0931 h; per GPU 3.0931 h · 16,384 = 50,677 h (5.8 years).
    assert LLAMA3_MTBF_PER_GPU.to("hour").magnitude == pytest.approx(54 * 24 * 16384 / 419)
    job = system_mtbf(LLAMA3_MTBF_PER_GPU, 16_384)
    assert job.to("hour").magnitude == pytest.approx(54 * 24 / 419, rel=1e-12)
    # "an average of one failure every three hours": 7.76 per day.
    assert expected_failures(Q_(1, "day"), job) == pytest.approx(419 / 54, rel=1e-12)


def test_system_mtbf_of_component_classes() -> None:
    # 1/(8/50,000 h + 1/100,000 h) = 1/(1.6e-4 + 1e-5) = 1/1.7e-4 = 5,882.35 h.
    mtbf = system_mtbf([Q_(50_000, "hour"), Q_(100_000, "hour")], [8, 1])
    assert mtbf.to("hour").magnitude == pytest.approx(1 / 1.7e-4, rel=1e-12)
    with pytest.raises(MlcostError, match="count"):
        system_mtbf([Q_(1, "hour"), Q_(2, "hour")], [1])
    with pytest.raises(MlcostError, match="component_mtbf"):
        system_mtbf(Q_(5, "GB"), 1)


def test_failure_probability() -> None:
    # Over one MTBF, P = 1 - 1/e = 0.632.
    assert failure_probability(Q_(3, "hour"), Q_(3, "hour")) == pytest.approx(1 - math.exp(-1))
    # The 3 AM gradient explosion at cluster scale: Llama 3's job (M = 3.09 h) over 1 hour,
    # P = 1 - exp(-1/3.0931) = 0.2762.
    job = Q_(54 * 24 / 419, "hour")
    assert failure_probability(Q_(1, "hour"), job) == pytest.approx(1 - math.exp(-419 / (54 * 24)))


# ----- size and write time --------------------------------------------------------------------
def test_checkpoint_size_by_hand() -> None:
    # bf16-mixed AdamW: bf16 weights 2 + FP32 master 4 + Adam m, v 8 = 14 B/param.
    # 405e9 · 14 = 5.67e12 B = 5.67 TB; sharded over 16,384 GPUs: 346.07 MB each.
    assert checkpoint_bytes(405e9).to("TB").magnitude == pytest.approx(5.67)
    assert checkpoint_bytes(405e9, include_weights=False).to("TB").magnitude == pytest.approx(4.86)
    per_gpu = checkpoint_bytes_per_gpu(405e9, 16_384)
    assert per_gpu.to("MB").magnitude == pytest.approx(405e9 * 14 / 16384 / 1e6)
    # The plain bytes a plan's failure model reads (a sweep's: one per GPU count).
    assert checkpoint_state_bytes(405e9, 16_384) == pytest.approx(405e9 * 14 / 16384, rel=1e-15)
    swept = checkpoint_state_bytes(405e9, np.array([8, 16_384]))
    assert swept == pytest.approx([405e9 * 14 / 8, 405e9 * 14 / 16384], rel=1e-15)
    # FP32 Adam: weights 4 + states 8 = 12 B/param (no master copy).
    assert checkpoint_bytes(1e9, "fp32", "adam").to("GB").magnitude == pytest.approx(12)


def test_write_time_by_hand() -> None:
    # 5.67 TB at Tectonic's 2 TB/s sustained (Llama 3 paper, section 3.3.1) = 2.835 s.
    time = checkpoint_write_time(Q_(5.67, "TB"), Q_(2, "TB/s"))
    assert time.to("s").magnitude == pytest.approx(2.835)
    # 1,000 writers capped at 1 GB/s each: min(2 TB/s, 1 TB/s) -> 5.67 s.
    capped = checkpoint_write_time(
        Q_(5.67, "TB"), Q_(2, "TB/s"), writers=1000, per_writer_bandwidth=Q_(1, "GB/s")
    )
    assert capped.to("s").magnitude == pytest.approx(5.67)
    with pytest.raises(MlcostError, match="bandwidth"):
        checkpoint_write_time(Q_(1, "TB"), Q_(2, "TB"))


def test_storage_bandwidth_from_catalog() -> None:
    catalog = default_catalog()
    # FSx for Lustre 24 TiB at 250 MB/s/TiB: 6,000 MB/s aggregate (its spec file).
    fsx = catalog.storage("fsx-lustre-persistent2-250-24tib")
    assert storage_write_bandwidth(fsx).to("MB/s").magnitude == pytest.approx(6000)
    # Eight Intel P5500 at 4.3 GB/s sequential write each (DGX A100/H100 data drives): 34.4 GB/s.
    nvme = catalog.storage("nvme-pcie4-intel-p5500-3.84tb")
    assert storage_write_bandwidth(nvme, 8).to("GB/s").magnitude == pytest.approx(34.4)


# ----- the plan -------------------------------------------------------------------------------
def test_goodput_plan_llama3_scale() -> None:
    # 405B on 16,384 GPUs writing to 2 TB/s: delta = 2.835 s, M = 3.0931 h = 11,135 s;
    # Young sqrt(2·2.835·11,135) = 251.3 s = 4.19 min. The Llama 3 paper reports "higher than
    # 90% effective training time"; the model (R = 10 min) gives about 92.6%, consistent.
    plan = goodput_plan(
        checkpoint_bytes_per_gpu(405e9, 16_384), 16_384, write_bandwidth=Q_(2, "TB/s")
    )
    assert plan.checkpoint_time.to("s").magnitude == pytest.approx(2.835)
    m = 54 * 24 * 3600 / 419
    assert plan.young_interval.to("s").magnitude == pytest.approx(math.sqrt(2 * 2.835 * m))
    assert 0.9 < plan.goodput < 1
    assert "Daly 2006" in plan.explain() and "Llama 3" in plan.explain()


@settings(max_examples=40, deadline=None)
@given(
    state_gb=st.floats(min_value=0.01, max_value=20),
    bandwidth_gbs=st.floats(min_value=1, max_value=10_000),
    mtbf_h=st.floats(min_value=1e3, max_value=1e6),
    asynchronous=st.booleans(),
)
def test_goodput_falls_as_gpus_grow(
    state_gb: float, bandwidth_gbs: float, mtbf_h: float, asynchronous: bool
) -> None:
    values = [
        goodput_plan(
            Q_(state_gb, "GB"),
            gpus,
            write_bandwidth=Q_(bandwidth_gbs, "GB/s"),
            mtbf_per_gpu=Q_(mtbf_h, "hour"),
            asynchronous=asynchronous,
        ).goodput
        for gpus in (1, 8, 64, 512, 4096, 32_768)
    ]
    assert all(0 <= v <= 1 for v in values)
    assert all(later <= earlier for earlier, later in itertools.pairwise(values))


def test_asynchronous_checkpointing_helps_when_writes_are_slow() -> None:
    # 10 GB per GPU x 1,024 GPUs to 6 GB/s: a 1,707 s blocking write. Overlapping it (an ideal
    # snapshot) removes delta from the critical path; the lost work grows by the write time.
    common: dict[str, Any] = {"write_bandwidth": Q_(6, "GB/s"), "mtbf_per_gpu": Q_(50_000, "hour")}
    blocking = goodput_plan(Q_(10, "GB"), 1024, **common)
    overlapped = goodput_plan(Q_(10, "GB"), 1024, asynchronous=True, **common)
    assert overlapped.goodput > blocking.goodput
    # A snapshot over a 25 GB/s host link costs 0.4 s of blocking time.
    snap = goodput_plan(
        Q_(10, "GB"), 1024, asynchronous=True, snapshot_bandwidth=Q_(25, "GB/s"), **common
    )
    assert snap.checkpoint_time.to("s").magnitude == pytest.approx(0.4)


def test_goodput_plan_rejects_bad_inputs() -> None:
    with pytest.raises(MlcostError, match="gpus"):
        goodput_plan(Q_(1, "GB"), 0, write_bandwidth=Q_(1, "GB/s"))
    with pytest.raises(MlcostError, match="write_bandwidth"):
        goodput_plan(Q_(1, "GB"), 8, write_bandwidth=Q_(1, "GB"))
    with pytest.raises(MlcostError, match="state_bytes_per_gpu"):
        goodput_plan(Q_(1, "s"), 8, write_bandwidth=Q_(1, "GB/s"))
    with pytest.raises(MlcostError, match="interval"):
        goodput_plan(Q_(1, "GB"), 8, write_bandwidth=Q_(1, "GB/s"), interval=Q_(0, "s"))


@pytest.mark.parametrize("asynchronous", [False, True])
def test_goodput_schedule_is_goodput_plan_for_every_count(asynchronous: bool) -> None:
    """The vectorized schedule of a sweep's goodput and of a plan's goodput figure
    (:func:`goodput_seconds`) is :func:`goodput_plan`'s, GPU count by GPU count (the same Daly
    complete model; ``goodput_plan`` is checked against Daly's paper above): the goodput,
    checkpoint size, blocking time, system MTBF, Daly's and the chosen interval, the effective
    restart and how the interval was chosen (asynchronous writes of 980 GB through 2 GB/s per
    node outlast Daly's optimum at large counts: the write-time rule)."""
    from mlcost.checkpointing.failures import (
        DALY_RESTART_TIME,
        LLAMA3_MTBF_PER_GPU,
        daly_rule,
        goodput_plan,
        goodput_seconds,
    )

    gpus = np.array([8, 64, 512, 4096, 16384])
    state = 14 * 70e9 / gpus
    bandwidth = 2e9 * np.ceil(gpus / 8)
    fast = goodput_seconds(
        state, gpus, bandwidth,
        mtbf_per_gpu_hours=float(LLAMA3_MTBF_PER_GPU.to("hour").magnitude),
        restart_seconds=float(DALY_RESTART_TIME.to("s").magnitude), asynchronous=asynchronous,
    )  # fmt: skip
    rules = []
    for i, (s, n, b) in enumerate(zip(state, gpus, bandwidth, strict=True)):
        slow = goodput_plan(
            Q_(float(s), "byte"), int(n), write_bandwidth=Q_(float(b), "byte/s"),
            asynchronous=asynchronous,
        )  # fmt: skip
        pairs = [
            (fast.checkpoint_bytes[i], slow.checkpoint_bytes.to("byte").magnitude),
            (fast.write_s[i], slow.write_time.to("s").magnitude),
            (fast.blocking_s[i], slow.checkpoint_time.to("s").magnitude),
            (fast.mtbf_s[i], slow.system_mtbf.to("s").magnitude),
            (fast.daly_s[i], slow.daly_interval.to("s").magnitude),
            (fast.interval_s[i], slow.interval.to("s").magnitude),
            # R alone when blocking (one number for every count), R + delta_w when not
            (
                np.broadcast_to(fast.effective_restart_s, gpus.shape)[i],
                slow.effective_restart_time.to("s").magnitude,
            ),
            (fast.goodput[i], slow.goodput),
        ]
        for ours, theirs in pairs:
            assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-12)
        assert daly_rule(asynchronous, fast.daly_s[i], fast.write_s[i]) == slow.interval_rule
        rules.append(slow.interval_rule)
        # One count alone, as a plan's chain evaluates it (arrays of one count), read as numbers
        # for the figures: the same, count by count.
        one = goodput_seconds(
            state[i : i + 1], gpus[i : i + 1], bandwidth[i : i + 1],
            mtbf_per_gpu_hours=float(LLAMA3_MTBF_PER_GPU.to("hour").magnitude),
            restart_seconds=float(DALY_RESTART_TIME.to("s").magnitude), asynchronous=asynchronous,
        ).one_configuration()  # fmt: skip
        numbers = [
            (one.checkpoint_bytes, slow.checkpoint_bytes.to("byte").magnitude),
            (one.write_s, slow.write_time.to("s").magnitude),
            (one.blocking_s, slow.checkpoint_time.to("s").magnitude),
            (one.mtbf_s, slow.system_mtbf.to("s").magnitude),
            (one.daly_s, slow.daly_interval.to("s").magnitude),
            (one.interval_s, slow.interval.to("s").magnitude),
            (one.restart_s, slow.restart_time.to("s").magnitude),
            (one.effective_restart_s, slow.effective_restart_time.to("s").magnitude),
            (one.goodput, slow.goodput),
        ]
        for ours, theirs in numbers:
            assert type(ours) is float
            assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-12)
        assert one.interval_rule == slow.interval_rule
        assert one.asynchronous is asynchronous
        # Given as Python numbers: numpy's arithmetic on one value, to the bit.
        scalar = goodput_seconds(
            float(state[i]), int(gpus[i]), float(bandwidth[i]),
            mtbf_per_gpu_hours=float(LLAMA3_MTBF_PER_GPU.to("hour").magnitude),
            restart_seconds=float(DALY_RESTART_TIME.to("s").magnitude), asynchronous=asynchronous,
        )  # fmt: skip
        for name in scalar.__struct_fields__:
            value = getattr(scalar, name)
            assert value == getattr(one, name), name
    assert ("the write time" in " ".join(rules)) == asynchronous


def test_a_plans_goodput_figure_cites_its_failure_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The goodput row of a plan (built from the vectorized schedule) cites the numbers of the
    plan's own failure model (:meth:`Plan.goodput`, the checked pint path): checkpoint size,
    blocking time, system MTBF, interval and restart, and the MTBF's source. The schedule is
    evaluated once per plan: the chain's goodput and the figures read the same one."""
    import mlcost.plan.chain as chain
    from mlcost import Plan
    from mlcost.checkpointing.failures import LLAMA3_MTBF_SOURCE

    evaluated: list[int] = []
    schedule = chain.goodput_seconds

    def counted(*args: Any, **kwargs: Any) -> Any:
        evaluated.append(1)
        return schedule(*args, **kwargs)

    monkeypatch.setattr(chain, "goodput_seconds", counted)
    for gpus, mtbf in ((64, None), (4096, Q_(20_000, "hour"))):
        plan = Plan("llama-2-7b", system="dgx-h100", gpus=gpus, tokens=1e12, mtbf_per_gpu=mtbf)
        detail = plan.goodput()
        assert detail is not None
        evaluated.clear()
        row = next(f for f in plan.train().figures() if f.name == "goodput")
        plan.figures()  # every figure: the goodput row again, from the same schedule
        assert len(evaluated) == 1
        assert row.substituted == (
            f"checkpoint {detail.checkpoint_bytes.to('TB').magnitude:.4g} TB in "
            f"{detail.checkpoint_time.to('s').magnitude:.4g} s, system MTBF "
            f"{detail.system_mtbf.to('hour').magnitude:.4g} h, interval "
            f"{detail.interval.to('minute').magnitude:.4g} min, restart "
            f"{detail.restart_time.to('minute').magnitude:.4g} min"
        )
        assert detail.interval_rule in row.formula
        assert row.value.magnitude == pytest.approx(detail.goodput, rel=1e-12)
        assert (LLAMA3_MTBF_SOURCE in row.source) == (mtbf is None)


def test_every_public_name_of_the_package_is_its_module_s_own() -> None:
    """``mlcost.checkpointing`` imports its modules on first use (PEP 562): every name of its
    ``__all__`` is the object its defining module holds, whichever is asked for first, and an
    unknown name raises AttributeError as a module attribute does; likewise ``mlcost.plan``'s
    ``Suggestion``."""
    import importlib
    import subprocess
    import sys

    import mlcost.checkpointing as package
    import mlcost.plan

    modules = ("chapter", "failures", "optimize", "placement", "recompute")
    defined = {}
    for name in modules:
        module = importlib.import_module(f"mlcost.checkpointing.{name}")
        defined.update({n: getattr(module, n) for n in dir(module) if n in package.__all__})
    assert set(defined) == set(package.__all__)
    for name in package.__all__:
        assert getattr(package, name) is defined[name], name
    with pytest.raises(AttributeError, match="no attribute 'placement_costs'"):
        package.placement_costs  # noqa: B018 - the attribute access is the test
    # dir() lists every public name before its first use (a fresh interpreter).
    listed = subprocess.run(
        [sys.executable, "-c", "import mlcost.checkpointing as c; print(sorted(dir(c)))"],
        capture_output=True, text=True, check=True, env=under_test_env(),
    ).stdout  # fmt: skip
    assert all(repr(name) in listed for name in package.__all__)
    from mlcost.plan.fit import Suggestion

    assert mlcost.plan.Suggestion is Suggestion
    with pytest.raises(AttributeError, match="no attribute 'Suggestions'"):
        mlcost.plan.Suggestions  # noqa: B018


def test_goodput_of_numbers_far_beyond_the_mtbf_is_zero_without_a_warning() -> None:
    """Daly's complete model ``tau / (M·e^(R/M)·(e^((tau+delta)/M) - 1))`` on one configuration's
    Python numbers: where the exponential stays finite, the value an array of one gives, to the
    bit (written out here: 60 s of work between 10 s writes, a 1 h MTBF, a 5 min restart); an
    interval thousands of MTBFs long overflows the exponential and gives a goodput of 0, not a
    warning nor an error."""
    import warnings

    from mlcost.checkpointing.failures import _goodput_fraction

    tau, delta, m, r = 60.0, 10.0, 3600.0, 300.0
    by_hand = tau / (m * math.exp(r / m) * math.expm1((tau + delta) / m))
    number = _goodput_fraction(tau, delta, m, r)
    assert type(number) is float
    assert number == _goodput_fraction(np.array([tau]), delta, m, r)[0]
    assert number == pytest.approx(by_hand, rel=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _goodput_fraction(1e7, 10.0, 1000.0, 300.0) == 0.0
        assert _goodput_fraction(60.0, 10.0, 1.0, 1e6) == 0.0
