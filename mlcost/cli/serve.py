"""``mlcost serve``: what serving a model costs: memory and the largest batch, time to first
token, time per output token, throughput under continuous batching, GPUs for a request rate,
and dollars, energy and CO2e per million input and output tokens."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from mlcost.cli.options import (
    DEFAULT_GPU,
    AllOption,
    ExplainOption,
    ForceOption,
    JsonOption,
    ModelArgument,
    NodesOption,
    price_option,
    quantity_option,
    renamed,
)
from mlcost.cli.output import (
    check_destination,
    print_answer,
    print_json,
    save_png,
    stdout_console,
)
from mlcost.errors import MlcostError
from mlcost.serving import ServePlan
from mlcost.specs import TransformerSpec


def _count(text: str, option: str) -> int:
    """A whole number of tokens or sequences >= 1."""
    try:
        value = float(text)
    except ValueError:
        raise MlcostError(f"{option}: got {text!r}, expected a whole number >= 1") from None
    if not (value >= 1 and value.is_integer() and value < 2**53):
        raise MlcostError(f"{option}: got {text!r}, expected a whole number >= 1")
    return int(value)


def _latency(text: str, option: str) -> Any:
    """A latency with its unit (``500ms``, ``0.5 s``): a bare number is refused, since a
    target of ``500`` could be seconds or milliseconds."""
    try:
        float(text)
    except ValueError:
        return quantity_option(text, "s", option)
    raise MlcostError(f"{option}: got {text!r}, expected a latency with its unit, e.g. 500ms")


def serve(
    model: ModelArgument,
    gpu: Annotated[
        str | None,
        typer.Option(help="Accelerator (default h100-sxm5-80gb, or the system's)."),
    ] = None,
    system: Annotated[
        str | None, typer.Option(help="Node whose GPUs and links serve (e.g. dgx-h100).")
    ] = None,
    tp: Annotated[
        int | None,
        typer.Option(
            "--tp",
            "--gpus",
            help="Tensor-parallel degree: GPUs of one pipeline stage (default 1; a search: only "
            "this degree).",
        ),
    ] = None,
    pp: Annotated[
        int | None,
        typer.Option(
            "--pp",
            help="Pipeline-parallel degree: stages of one replica, each tp GPUs (default 1; a "
            "search: only this degree).",
        ),
    ] = None,
    ep: Annotated[
        int | None,
        typer.Option(
            "--ep",
            help="Expert-parallel degree of a mixture-of-experts model, equal to --tp: experts "
            "split over the tp GPUs, attention data parallel (default 1; not searched).",
        ),
    ] = None,
    nodes: NodesOption = None,
    prompt: Annotated[str, typer.Option(help="Prompt (input) tokens per request.")] = "1024",
    output_tokens: Annotated[
        str | None, typer.Option("--output-tokens", help="Output tokens per request (default 256).")
    ] = None,
    old_output: Annotated[
        str | None, typer.Option("--output", hidden=True, help="Deprecated: --output-tokens.")
    ] = None,
    rate: Annotated[
        str | None, typer.Option(help="Requests per second to serve (sizes the GPUs).")
    ] = None,
    concurrency: Annotated[
        str | None,
        typer.Option("--concurrency", help="Sequences decoding together (default: chosen)."),
    ] = None,
    old_batch: Annotated[
        str | None, typer.Option("--batch", hidden=True, help="Deprecated: --concurrency.")
    ] = None,
    weights: Annotated[str, typer.Option(help="bf16 | fp16 | fp8 | int8 | int4.")] = "bf16",
    kv_format: Annotated[
        str, typer.Option("--kv-format", help="KV cache: bf16 | fp16 | fp8 | int8 | int4.")
    ] = "bf16",
    draft: Annotated[str | None, typer.Option(help="Draft model for speculative decoding.")] = None,
    acceptance: Annotated[
        float | None, typer.Option(help="Draft token acceptance rate in [0, 1].")
    ] = None,
    engine: Annotated[
        str | None,
        typer.Option(
            help="Serving engine profile: vllm (default) | tensorrt-llm | sglang | hf-generate | "
            "cuda-graphs | pytorch-eager | pytorch-cuda-graphs."
        ),
    ] = None,
    disaggregated: Annotated[
        bool,
        typer.Option(
            "--disaggregated",
            help="Prefill and decode on separate replicas, the KV cache sent between them "
            "(a search: only this layout; it tries both otherwise).",
        ),
    ] = False,
    ttft: Annotated[
        str | None,
        typer.Option(
            help="Time-to-first-token target (e.g. 500ms). Without --gpu/--system: search the "
            "cheapest configuration meeting --ttft/--tpot; with them: the default batch's target "
            "(default 450 ms)."
        ),
    ] = None,
    tpot: Annotated[
        str | None,
        typer.Option(help="Time-per-output-token target (e.g. 50ms; default 40 ms)."),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option(help="With a search: write the Pareto front (cost against TPOT) as PNG."),
    ] = None,
    region: Annotated[
        str | None,
        typer.Option(help="Grid region for CO2e, PUE and price (default: world, as in Python)."),
    ] = None,
    price: Annotated[
        str | None, typer.Option(help="USD per GPU-hour, or a catalog price name.")
    ] = None,
    explain: ExplainOption = False,
    every: AllOption = False,
    force: ForceOption = False,
    as_json: JsonOption = False,
) -> None:
    """Serving cost of MODEL: KV cache, TTFT, TPOT, throughput, GPUs, $ and CO2e per 1M tokens;
    with --ttft/--tpot and no --gpu/--system, the cheapest configuration meeting them."""
    output = renamed(output_tokens, old_output, "--output", "--output-tokens") or "256"
    batch = renamed(concurrency, old_batch, "--batch", "--concurrency")
    price_value = price_option(price)  # a number, or a catalog price name or alias
    rate_value = None if rate is None else quantity_option(rate, "1/s", "--rate")
    ttft_value = None if ttft is None else _latency(ttft, "--ttft")
    tpot_value = None if tpot is None else _latency(tpot, "--tpot")
    if plot is not None:
        check_destination(plot, "--plot", force=force)
    degrees = {"tp": tp, "pp": pp, "ep": ep, "nodes": nodes}
    counted = {k: None if v is None else _count(str(v), f"--{k}") for k, v in degrees.items()}
    if (ttft_value is not None or tpot_value is not None) and gpu is None and system is None:
        if counted["ep"] is not None:
            raise MlcostError(
                f"--ep: got {counted['ep']}, but the search does not try expert parallelism yet; "
                "give --gpu (or --system) with --tp and --ep to price that layout"
            )
        layouts = (True,) if disaggregated else (False, True)
        _search(model, (ttft_value, tpot_value), rate_value, prompt, output, engine, layouts,
                counted, plot, as_json, (explain, every), force=force)  # fmt: skip
        return
    if plot is not None:
        raise MlcostError(
            "--plot: draws the Pareto front of a search; give --ttft/--tpot without --gpu/--system"
        )
    where: dict[str, Any] = {
        "gpu": gpu if gpu is not None or system is not None else DEFAULT_GPU,
        "system": system,
    }
    if counted["nodes"] is not None:  # the system, or the GPU's standard node, on that many nodes
        from mlcost.systems import system as system_of

        target = system if system is not None else where["gpu"]
        gpu_in = gpu if system is not None else None
        where = {"gpu": None, "system": system_of(target, accelerator=gpu_in,
                                                   nodes=counted["nodes"])}  # fmt: skip
    plan = ServePlan(
        model,
        **where,
        tp=counted["tp"] or 1,
        pp=counted["pp"] or 1,
        ep=counted["ep"] or 1,
        prompt=_count(prompt, "--prompt"),
        output=_count(output, "--output-tokens"),
        batch=None if batch is None else _count(batch, "--concurrency"),
        rate=rate_value,
        weights=weights,
        kv_format=kv_format,
        draft=draft,
        acceptance=acceptance,
        engine=engine or "vllm",
        disaggregated=disaggregated,
        ttft=ttft_value,
        tpot=tpot_value,
        region=region or ServePlan.region,
        price=price_value,
    )
    plan.require_fit()  # one line and exit status 2, as `mlcost plan` does
    if as_json:
        print_json(plan.to_json())
    else:
        print_answer(plan, explain=explain, every=every)


def _search(
    model: str,
    target: tuple[Any, Any],
    rate: Any,
    prompt: str,
    output: str,
    engine: str | None,
    layouts: tuple[bool, ...],
    degrees: dict[str, int | None],
    plot: Path | None,
    as_json: bool,
    shown: tuple[bool, bool],
    *,
    force: bool = False,
) -> None:
    """``mlcost serve MODEL --ttft T --tpot T``: the cheapest configuration, its runner-up and
    the Pareto front (:func:`mlcost.serving.slo.search_slo`); ``degrees``: ``--tp``/``--pp``
    restrict the search to one degree each, ``--nodes`` is the most nodes a replica spans; with
    ``--disaggregated`` disaggregated prefill and decode only."""
    ttft, tpot = target
    from rich.table import Table

    from mlcost.assumptions import DEFAULT_ASSUMPTIONS
    from mlcost.serving.slo import (
        DEFAULT_ENGINES,
        DEFAULT_MAX_NODES,
        DEFAULT_PP,
        DEFAULT_TP,
        search_slo,
    )

    tp, pp, nodes = degrees["tp"], degrees["pp"], degrees["nodes"]
    if tp is not None or pp is not None:  # a degree the model cannot take: refused, not searched
        from mlcost.serving.workload import check_pipeline_stages, check_tensor_parallel
        from mlcost.specs.catalog import as_model, default_catalog

        spec = as_model(model, default_catalog())
        if isinstance(spec, TransformerSpec):
            _ = tp is None or check_tensor_parallel(spec, tp)
            _ = pp is None or check_pipeline_stages(spec, pp)
    result = search_slo(
        model,
        ttft=ttft if ttft is not None else DEFAULT_ASSUMPTIONS.serving_ttft_target,
        tpot=tpot if tpot is not None else DEFAULT_ASSUMPTIONS.serving_tpot_target,
        rate=rate, prompt=_count(prompt, "--prompt"), output=_count(output, "--output-tokens"),
        engines=(engine,) if engine else DEFAULT_ENGINES, layouts=layouts,
        tp=DEFAULT_TP if tp is None else (tp,), pp=DEFAULT_PP if pp is None else (pp,),
        max_nodes=DEFAULT_MAX_NODES if nodes is None else nodes,
    )  # fmt: skip
    if plot is not None:
        import matplotlib

        matplotlib.use("Agg")
        save_png(result.plot(), plot, force=force)
    if as_json:
        front = [c.__dict__ for c in result.pareto()]
        print_json({**result.to_json(), "pareto": front})
        return
    print_answer(result, explain=shown[0], every=shown[1])
    if not shown[1]:
        return
    table = Table(title="Pareto front: cost against time per output token", title_justify="left")
    for column in ("configuration", "TTFT ms", "TPOT ms", "tokens/s", "USD/1M out"):
        table.add_column(column, justify="left" if column == "configuration" else "right")
    for c in result.pareto():
        table.add_row(c.label, f"{c.ttft_ms:.0f}", f"{c.tpot_ms:.1f}", f"{c.tokens_per_s:,.0f}",
                      f"{c.usd_per_m_output:.3f}")  # fmt: skip
    stdout_console().print(table)
