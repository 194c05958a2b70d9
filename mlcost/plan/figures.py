"""The figures of a plan, each with its formula, the numbers substituted and its source, one
function per stage of the chain (:mod:`mlcost.plan.chain`). A run that does not fit shows its
memory, its layout and why, and no time, energy, cost or CO2e."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mlcost.assumptions import ASSUMPTION_SOURCES
from mlcost.checkpointing.failures import LLAMA3_MTBF_SOURCE, GoodputSchedule
from mlcost.energy import ACCOUNTING
from mlcost.plan.resolve import Run
from mlcost.results import Figure
from mlcost.scaling import HOFFMANN
from mlcost.timing import MFU_SOURCE
from mlcost.uncertainty import step_calibration, with_band
from mlcost.units import Q_, format_quantity, in_unit, quantity_in

Values = dict[str, Any]


def fit_verdict(run: Run, v: Values) -> str:
    """``fits: 61.2 GiB of 79.65 GiB per GPU`` or ``does not fit: needs ... of ... per GPU``."""
    if v["fits"]:
        return f"fits: {v['memory_gib']:.4g} GiB of {v['capacity_gib']:.4g} GiB per GPU"
    return (
        f"does not fit: needs {v['memory_gib']:.4g} GiB of {v['capacity_gib']:.4g} GiB per GPU "
        f"({run.system.accelerator.name}, {run.layout.describe()})"
    )


def run_figures(run: Run, v: Values) -> list[Figure]:
    """What the run is: the verdict, the layout and how it was chosen, parameters, tokens,
    memory per GPU."""
    model = run.model
    return [
        Figure(
            "fits",
            fit_verdict(run, v),
            "memory per GPU <= usable memory of the GPU",
            f"{v['memory_gib']:.4g} GiB vs {v['capacity_gib']:.4g} GiB",
            "mlcost.memory (the GPU's reported memory: memory_visible)",
        ),
        Figure(
            "layout",
            run.layout.describe(),
            run.layout_source,
            f"{run.gpus} GPUs",
            "mlcost.layout; mlcost.parallel.search when not given",
        ),
        Figure(
            "parameters",
            Q_(run.parameters, "param"),
            "exact count from the architecture",
            model.name,
            f"{model.name} spec ({model.source_of('*') or 'catalog'})",
        ),
        Figure(
            "tokens",
            Q_(v["tokens"], "token"),
            "given (or 20 tokens per parameter)",
            f"{v['tokens']:.4g}",
            run.tokens_source,
        ),
        Figure(
            "memory per GPU",
            Q_(v["memory_gib"], "GiB"),
            "weights + gradients + optimizer states + activations + overheads",
            f"{v['memory_gib']:.4g} GiB of {v['capacity_gib']:.4g} GiB on the most loaded stage",
            "mlcost.memory.memory_breakdown (Korthikanti et al. 2022; Rajbhandari et al. 2020)",
        ),
    ]


def step_figures(run: Run, v: Values) -> list[Figure]:
    """Compute, exposed communication, input pipeline and the step."""
    c, g, a = run.config, run.system.accelerator, run.assumptions
    napkin = run.sustained is not None
    found = step_calibration(run.software.name, run.system.accelerator)
    compute_formula = (
        f"FLOPs per step / (GPUs x sustained {(run.sustained or 0) / 1e12:g} TFLOP/s) (napkin mode)"
        if napkin
        else "m x t_stage + t_opt + bubble: every operator of the slowest stage's shard on the "
        "roofline (max(F/(peak·eta), B/(BW·eta)) + launches)"
    )
    return [
        Figure(
            "compute time per step",
            quantity_in(v["compute_s"], "s", "ms"),
            compute_formula,
            f"{run.layout.describe()} on {g.name} (peak {run.peak / 1e12:.4g} TFLOP/s "
            f"{c.policy.compute_format}, {format_quantity(g.memory_bandwidth)})",
            "mlcost.parallel.step (roofline: Williams et al. 2009; bubble: Narayanan et al. "
            f"2021 §2.2); {run.system.accelerator.name} ceilings: "
            + run.system.ceilings(c.policy.compute_format).source,
        ),
        Figure(
            "exposed communication per step",
            quantity_in(v["communication_s"], "s", "ms"),
            "tensor/pipeline/context/data-parallel and ZeRO traffic not hidden behind compute",
            f"{run.gpus} GPUs on {run.system.source or run.system.name}",
            "mlcost.parallel.traffic (alpha-beta collectives: Patarasuk and Yuan 2009; Thakur "
            "et al. 2005; ZeRO volumes: Rajbhandari et al. 2020 section 7)"
            if run.gpus > 1
            else "one GPU: nothing to communicate",
        ),
        Figure(
            "input pipeline per step",
            quantity_in(v["data_s"], "s", "ms"),
            "max(read, tokenize, host-to-device) per GPU (prefetch overlaps the stages)",
            f"read {v['read_s'] * 1e3:.3g} ms, tokenize {v['preprocess_s'] * 1e3:.3g} ms "
            f"({a.loader_workers} workers x {format_quantity(a.tokenization_rate_per_core)}), "
            f"transfer {v['transfer_s'] * 1e3:.3g} ms over "
            f"{run.system.host_link.name if run.system.host_link else 'no link'}",
            "textbook chapter F-29..F-39 (data pipeline); " + ASSUMPTION_SOURCES["loader_workers"],
        ),
        Figure(
            "step time",
            quantity_in(v["step_s"], "s", "ms"),
            "max((compute + exposed communication) x calibration, input pipeline)",
            f"max(({v['compute_s'] * 1e3:.4g} + {v['communication_s'] * 1e3:.4g}) x "
            f"{1.0 if found is None or run.sustained is not None else found.factor:.3f}, "
            f"{v['data_s'] * 1e3:.4g}) ms -> "
            + ("data-bound" if v["data_bound"] else "compute-bound")
            + (f"; {found.note}" if found is not None and run.sustained is None else ""),
            "textbook chapter F-33 (T_system = min(T_pipeline, T_compute))"
            + (f"; {found.derivation}" if found is not None and run.sustained is None else ""),
        ),
    ]


#: The name of the report-mode figure that compares the published GPU-hours with the plan's.
PREDICTED_GPU_HOURS = "predicted GPU-hours"


def report_mode_disagreement(run: Run, v: Values) -> str | None:
    """In report mode, one line when the published GPU-hours and the plan's own prediction of
    the same run differ by more than ``Assumptions.report_mode_factor``; else None."""
    if run.gpu_hours is None:
        return None
    published, predicted = v["gpu_hours"], v["predicted_gpu_hours"]
    factor = run.assumptions.report_mode_factor
    if not predicted > 0 or 1 / factor <= published / predicted <= factor:
        return None

    def hours(x: float) -> str:
        return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"

    return (
        f"gpu_hours: got {hours(published)} GPU-hours, but this plan predicts {hours(predicted)} "
        f"for the same run ({published / predicted:.3g}x); the figures use the published "
        "GPU-hours as given: check --gpu-hours, --tokens, --gpus and the model"
    )


def report_mode_figure(run: Run, v: Values) -> Figure:
    """The plan's own GPU-hours beside a published figure (report mode), with their ratio and,
    beyond ``Assumptions.report_mode_factor``, the warning (issue 65: never silently)."""
    published, predicted = v["gpu_hours"], v["predicted_gpu_hours"]
    ratio = published / predicted if predicted > 0 else float("nan")
    far = report_mode_disagreement(run, v)
    return Figure(
        PREDICTED_GPU_HOURS,
        Q_(predicted, "hour"),
        "GPUs · steps · step time / goodput (this plan, for comparison)",
        f"published / predicted = {published:.6g} h / {predicted:.6g} h = {ratio:.3g}"
        + (f"; WARNING: {far}" if far else ""),
        "mlcost's prediction of the same run; report_mode_factor: "
        + ASSUMPTION_SOURCES["report_mode_factor"],
    )


def time_figures(run: Run, v: Values, failures: GoodputSchedule | None) -> list[Figure]:
    """Steps, goodput, wall clock, GPU-hours, MFU, and the distance from compute-optimal."""
    lay = run.layout
    steps = Figure(
        "steps",
        Q_(v["steps"], "dimensionless"),
        "ceil(D / (global batch · sequence))",
        f"ceil({v['tokens']:.4g} / ({lay.global_batch} x {run.config.sequence_length}))",
        "definition",
    )
    if run.gpu_hours is not None:  # report mode
        given = [
            Figure(
                "wall clock",
                quantity_in(v["wall_s"], "s", "day"),
                "published GPU-hours / GPUs (report mode)",
                f"{v['gpu_hours']:.6g} h / {run.gpus}",
                "given (gpu_hours=)",
            ),
            Figure("GPU-hours", Q_(v["gpu_hours"], "hour"), "published", "-", "given (gpu_hours=)"),
            report_mode_figure(run, v),
        ]
        return [steps, *given, optimality_figure(run, v)]
    return [
        steps,
        goodput_figure(run, v, failures),
        Figure(
            "wall clock",
            quantity_in(v["wall_s"], "s", "day"),
            "steps · step time / goodput",
            f"{v['steps']:.6g} x {v['step_s']:.4g} s / {v['goodput']:.4g}",
            "definition (Iron Law of training, textbook chapter); goodput as above",
        ),
        Figure(
            "GPU-hours",
            Q_(v["gpu_hours"], "hour"),
            "GPUs · wall clock",
            f"{run.gpus} x {v['wall_s'] / 3600:.6g} h",
            "definition",
        ),
        Figure(
            "MFU",
            quantity_in(v["mfu"], "dimensionless", "percent"),
            "model FLOPs per step / (step time · GPUs · dense peak)",
            f"{v['model_flops'] / max(v['steps'], 1):.4g} FLOP / ({v['step_s']:.4g} s x "
            f"{run.gpus} x {run.peak:.4g} FLOP/s)",
            MFU_SOURCE,
        ),
        optimality_figure(run, v),
    ]


def optimality_figure(run: Run, v: Values) -> Figure:
    """The distance from compute-optimal, ``N / N_opt`` at the run's own budget (Hoffmann et al.
    2022)."""
    n = run.parameters
    return Figure(
        "N / N_opt",
        Q_(v["n_over_n_opt"], "dimensionless"),
        "N / N_opt(C = 6·N·D), N_opt = G·(C/6)^(beta/(alpha+beta))",
        f"{n:.4g} / N_opt(6 x {n:.4g} x {v['tokens']:.4g})",
        HOFFMANN.source,
    )


def goodput_figure(run: Run, v: Values, detail: GoodputSchedule | None) -> Figure:
    """The goodput under failures and checkpoints, with the schedule behind it (``detail``: the
    plan's :func:`mlcost.plan.chain.goodput_schedule`)."""
    if detail is None or run.checkpoint is None:
        return Figure(
            "goodput",
            Q_(1.0, "dimensionless"),
            "1 (no failure model: no checkpoint storage known, or failures=False)",
            "-",
            "pass system= with drives or checkpoint_storage= to model failures",
        )
    mtbf_source = LLAMA3_MTBF_SOURCE if run.mtbf_per_gpu is None else "given"
    return Figure(
        "goodput",
        Q_(v["goodput"], "dimensionless"),
        "useful time / expected wall time with checkpoints, failures and restarts "
        f"(interval: {detail.interval_rule})",
        f"checkpoint {float(detail.checkpoint_bytes) / 1e12:.4g} TB in "
        f"{float(detail.blocking_s):.4g} s, system MTBF {float(detail.mtbf_s) / 3600:.4g} h, "
        f"interval {float(detail.interval_s) / 60:.4g} min, restart "
        f"{detail.restart_s / 60:.4g} min",
        f"Daly 2006 (FGCS 22(3)), Young 1974; MTBF: {mtbf_source}; storage: "
        + run.checkpoint.source,
    )


def energy_figures(run: Run, v: Values) -> list[Figure]:
    """GPU power, IT power, energy: dynamic (the convention's IT power) + idle infrastructure
    (Luccioni et al. 2022, section 4.2), reported apart and summed."""
    hours = v["wall_s"] / 3600
    return [
        *_power_figures(run, v),
        Figure(
            "energy (dynamic)",
            quantity_in(v["dynamic_kwh"], "kWh", "MWh"),
            "IT power · wall clock · PUE",
            f"{v['it_power_w'] / 1e3:.5g} kW x {hours:.6g} h x {v['pue']:g}",
            f"PUE: {run.pue_source}",
        ),
        Figure(
            "energy (idle)",
            quantity_in(v["idle_kwh"], "kWh", "MWh"),
            "GPUs · idle infrastructure power per GPU · wall clock · PUE",
            f"{run.gpus} x {run.idle_power_per_gpu:.4g} W x {hours:.6g} h x {v['pue']:g}",
            run.idle_source,
        ),
        Figure(
            "energy",
            quantity_in(v["energy_kwh"], "kWh", "MWh"),
            "energy (dynamic) + energy (idle)",
            f"{v['dynamic_kwh'] / 1e3:.6g} MWh + {v['idle_kwh'] / 1e3:.6g} MWh",
            "Luccioni et al. 2022 (BLOOM), section 4: operational = dynamic + idle",
        ),
    ]


def _power_figures(run: Run, v: Values) -> list[Figure]:
    """Power per GPU and IT power under the plan's accounting convention."""
    if run.power_per_gpu is not None:
        return [
            Figure(
                "GPU power",
                Q_(v["gpu_power_w"], "W"),
                f"IT power per GPU, {run.accounting}: {ACCOUNTING[run.accounting]}",
                f"{run.power_per_gpu:.4g} W",
                run.power_source,
            ),
            Figure(
                "IT power",
                quantity_in(v["it_power_w"], "W", "kW"),
                "N_gpu · P per GPU",
                f"{run.gpus} x {run.power_per_gpu:.4g} W",
                f"accounting {run.accounting}",
            ),
        ]
    a, g = run.assumptions, run.system.accelerator
    tdp = in_unit(g.tdp, "W") if g.tdp is not None else float("nan")
    return [
        Figure(
            "GPU power",
            Q_(v["gpu_power_w"], "W"),
            "P_idle + (TDP - P_idle)·u, u = busy share of the step (accounting utilization)",
            f"{a.gpu_idle_fraction} x {tdp:g} W + (1 - {a.gpu_idle_fraction}) x "
            f"{tdp:g} W x {v['compute_s'] / v['step_s']:.3f}",
            f"{g.name} TDP ({g.source_of('tdp') or 'datasheet'}); idle share: "
            + ASSUMPTION_SOURCES["gpu_idle_fraction"],
        ),
        Figure(
            "IT power",
            quantity_in(v["it_power_w"], "W", "kW"),
            "N_gpu · P_gpu + N_gpu · P_host per GPU",
            f"{run.gpus} x {v['gpu_power_w']:.4g} W + {run.gpus} x "
            f"{run.system.host_power_per_gpu.to('W').magnitude:.4g} W",
            run.power_source,
        ),
    ]


def cost_figures(run: Run, v: Values) -> list[Figure]:
    """Rental, ownership, break-even."""
    a = run.assumptions
    lifetime = in_unit(a.gpu_lifetime, "hour")
    return [
        Figure(
            "rental cost",
            Q_(v["rental_usd"], "USD"),
            "GPU-hours · price per GPU-hour",
            f"{v['gpu_hours']:.6g} h x {run.price:g} USD/h",
            run.price_source,
        ),
        Figure(
            "ownership cost of this run",
            Q_(v["ownership_usd"], "USD"),
            "N_gpu · purchase · wall / (lifetime · use rate) + energy · electricity price",
            f"{run.gpus} x {run.purchase:.6g} USD x {v['wall_s'] / 3600:.6g} h / "
            f"({lifetime:.6g} h x {a.gpu_use_rate:g}) + {v['energy_kwh']:.6g} kWh x "
            f"{run.electricity_price:.4g} USD/kWh",
            f"purchase: {run.purchase_source}; lifetime: {ASSUMPTION_SOURCES['gpu_lifetime']}; "
            f"use rate: {ASSUMPTION_SOURCES['gpu_use_rate']}; electricity: "
            + run.electricity_source,
        ),
        Figure(
            "rent-vs-buy break-even",
            Q_(v["break_even_runs"], "dimensionless"),
            "N_gpu · purchase / rental cost of one run (runs)",
            f"{v['purchase_usd']:.6g} USD / {v['rental_usd']:.6g} USD; in months of steady use: "
            f"{v['break_even_months']:.3g}",
            "textbook chapter F-62 (rent-or-buy economics)",
        ),
    ]


def carbon_figures(run: Run, v: Values) -> list[Figure]:
    """Operational and embodied CO2e."""
    a, grid = run.assumptions, run.grid
    embodied = run.system.accelerator.embodied_carbon or a.embodied_carbon_per_gpu
    embodied_source = (
        run.system.accelerator.source_of("embodied_carbon")
        if run.system.accelerator.embodied_carbon is not None
        else ASSUMPTION_SOURCES["embodied_carbon_per_gpu"]
    )
    return [
        Figure(
            "operational CO2e",
            Q_(v["operational_t"], "tCO2e"),
            "energy · grid carbon intensity",
            f"{v['energy_kwh']:.6g} kWh x {v['intensity_g_per_kwh']:.5g} gCO2e/kWh",
            f"{grid.name} grid ({grid.year}): {grid.source_of('carbon_intensity') or grid.name}",
        ),
        Figure(
            "embodied CO2e (GPUs)",
            Q_(v["embodied_gpu_t"], "tCO2e"),
            "embodied per GPU · GPU-hours / (lifetime · use rate)",
            f"{format_quantity(embodied)} x {v['gpu_hours']:.6g} h / "
            f"({a.gpu_lifetime.to('hour').magnitude:.6g} h x {a.gpu_use_rate:g})",
            f"{embodied_source}; lifetime: {ASSUMPTION_SOURCES['gpu_lifetime']}; use rate: "
            + ASSUMPTION_SOURCES["gpu_use_rate"],
        ),
        Figure(
            "embodied CO2e (servers)",
            Q_(v["embodied_server_t"], "tCO2e"),
            "embodied per server / GPUs per server · GPU-hours / (lifetime · use rate)",
            f"{format_quantity(a.embodied_carbon_per_server)} / {run.system.gpus_per_node} x "
            f"{v['gpu_hours']:.6g} h / ({a.gpu_lifetime.to('hour').magnitude:.6g} h x "
            f"{a.gpu_use_rate:g})",
            ASSUMPTION_SOURCES["embodied_carbon_per_server"],
        ),
        Figure(
            "embodied CO2e",
            Q_(v["embodied_t"], "tCO2e"),
            "embodied CO2e (GPUs) + embodied CO2e (servers)",
            f"{v['embodied_gpu_t']:.4g} t + {v['embodied_server_t']:.4g} t",
            "Luccioni et al. 2022, section 4.1 (life-cycle view)",
        ),
        Figure(
            "total CO2e",
            Q_(v["total_t"], "tCO2e"),
            "operational CO2e + embodied CO2e",
            f"{v['operational_t']:.4g} t + {v['embodied_t']:.4g} t",
            "sum of the rows above",
        ),
    ]


#: The stages of a plan's figures, in reading order (:func:`plan_figures`).
STAGES = ("run", "step", "time", "energy", "cost", "carbon")


def plan_figures(
    run: Run,
    v: Values,
    failures: GoodputSchedule | None,
    stages: tuple[str, ...] = STAGES,
) -> list[Figure]:
    """The figures of a plan's ``stages`` (:data:`STAGES`; energy, cost and carbon read the
    money stage's values in ``v``), the ones proportional to the step time with its band; a
    plan that does not fit shows what the run is and stops after its memory."""
    if not v["fits"]:
        return [
            *run_figures(run, v),
            Figure(
                "time, energy, cost, CO2e",
                None,
                "not computed: the run does not fit",
                fit_verdict(run, v),
                "Plan.suggestions() lists layouts and settings that fit",
            ),
        ]
    builders: dict[str, Callable[[], list[Figure]]] = {
        "run": lambda: run_figures(run, v),
        "step": lambda: step_figures(run, v),
        "time": lambda: time_figures(run, v, failures),
        "energy": lambda: energy_figures(run, v),
        "cost": lambda: cost_figures(run, v),
        "carbon": lambda: carbon_figures(run, v),
    }
    # Napkin mode (the user's throughput) or report mode (published GPU-hours): no band.
    banded = run.sustained is None and run.gpu_hours is None
    figures = []
    for stage in stages:
        for figure in builders[stage]():
            if banded and figure.name in BANDED and figure.value.magnitude:
                figure = with_band(figure)
            figures.append(figure)
    return figures


#: The figures proportional to the step time, which carry its band (:mod:`mlcost.uncertainty`).
BANDED = frozenset(
    {
        "step time",
        "wall clock",
        "GPU-hours",
        "energy (dynamic)",
        "energy (idle)",
        "energy",
        "rental cost",
        "ownership cost of this run",
        "operational CO2e",
        "embodied CO2e",
    }
)
