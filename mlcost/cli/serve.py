"""``mlcost serve``: what serving a model costs: memory and the largest batch, time to first
token, time per output token, throughput under continuous batching, GPUs for a request rate,
and dollars, energy and CO2e per million input and output tokens."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from mlcost.cli.options import JsonOption, ModelArgument, quantity_option
from mlcost.cli.output import print_explained, print_json, print_result
from mlcost.errors import MlcostError
from mlcost.serving import ServePlan

DEFAULT_GPU = "h100-sxm5-80gb"


def _count(text: str, option: str) -> int:
    """A whole number of tokens or sequences >= 1."""
    try:
        value = float(text)
    except ValueError:
        raise MlcostError(f"{option}: got {text!r}, expected a whole number >= 1") from None
    if not (value >= 1 and value.is_integer() and value < 2**53):
        raise MlcostError(f"{option}: got {text!r}, expected a whole number >= 1")
    return int(value)


def serve(
    model: ModelArgument,
    gpu: Annotated[
        str | None,
        typer.Option(help="Accelerator (default h100-sxm5-80gb, or the system's)."),
    ] = None,
    system: Annotated[
        str | None, typer.Option(help="Node whose GPUs and links serve (e.g. dgx-h100).")
    ] = None,
    tp: Annotated[str, typer.Option("--tp", help="Tensor-parallel GPUs per replica.")] = "1",
    prompt: Annotated[str, typer.Option(help="Prompt (input) tokens per request.")] = "1024",
    output: Annotated[str, typer.Option(help="Output tokens per request.")] = "256",
    rate: Annotated[
        str | None, typer.Option(help="Requests per second to serve (sizes the GPUs).")
    ] = None,
    batch: Annotated[
        str | None, typer.Option(help="Sequences decoding together (default: chosen).")
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
        str,
        typer.Option(
            help="Serving engine profile: cuda-graphs | pytorch-eager | pytorch-cuda-graphs."
        ),
    ] = "cuda-graphs",
    region: Annotated[str, typer.Option(help="Grid region for CO2e.")] = "us",
    price: Annotated[
        str | None, typer.Option(help="USD per GPU-hour, or a catalog price name.")
    ] = None,
    explain: Annotated[bool, typer.Option(help="Each figure with its derivation.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Serving cost of MODEL: KV cache, TTFT, TPOT, throughput, GPUs, $ and CO2e per 1M tokens."""
    price_value: Any = price
    if price is not None and price.strip()[:1].isdigit():
        price_value = quantity_option(price, "USD/hour", "--price")
    rate_value = None if rate is None else quantity_option(rate, "1/s", "--rate")
    plan = ServePlan(
        model,
        gpu=gpu if gpu is not None or system is not None else DEFAULT_GPU,
        system=system,
        tp=_count(tp, "--tp"),
        prompt=_count(prompt, "--prompt"),
        output=_count(output, "--output"),
        batch=None if batch is None else _count(batch, "--batch"),
        rate=rate_value,
        weights=weights,
        kv_format=kv_format,
        draft=draft,
        acceptance=acceptance,
        engine=engine,
        region=region,
        price=price_value,
    )
    plan.require_fit()  # one line and exit status 2, as `mlcost plan` does
    if as_json:
        print_json(plan.to_json())
    elif explain:
        print_explained(plan)
    else:
        print_result(plan)
