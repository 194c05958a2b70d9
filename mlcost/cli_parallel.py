"""The ``mlcost comm ...`` sub-app and the ``mlcost parallel`` command.

Registered by :mod:`mlcost.cli` as ``app.add_typer(comm_app, name="comm")`` and
``app.command("parallel")(parallel_command)``. Every command takes ``--json``; quantities in JSON
are ``{"value": <number>, "unit": "<pint unit>"}``. User errors raise :class:`MlcostError`, which
the CLI's ``main`` prints as one line (exit status 2).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.table import Table

from mlcost.cli_common import quantity_option, stdout_console
from mlcost.comms import collective_table, topology
from mlcost.errors import MlcostError
from mlcost.parallel.search import search
from mlcost.specs import TransformerSpec, default_catalog, load_spec
from mlcost.units import Q_, quantity_to_json
from mlcost.workload import TrainingConfig

comm_app = typer.Typer(
    help="Collective times on a system (alpha-beta model), reported like nccl-tests.",
    no_args_is_help=True,
)

SystemOption = Annotated[
    str, typer.Option("--system", help="Node or cluster name or spec path, e.g. dgx-h100.")
]
NodesOption = Annotated[
    int | None, typer.Option("--nodes", help="Number of nodes (default: the system's).")
]
BytesOption = Annotated[
    str, typer.Option("--bytes", help="Message size, e.g. 1GB, 256MiB or 1e9 (bytes).")
]
RanksOption = Annotated[
    int | None, typer.Option("--ranks", help="Ranks taking part (default: every GPU).")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


def _system(name: str) -> Any:
    if name.lower().endswith((".yaml", ".yml")):
        return load_spec(name)
    return name


def _collective(
    collective: str, system: str, nodes: int | None, size: str, ranks: int | None, as_json: bool
) -> None:
    topo = topology(_system(system), nodes=nodes)
    quantity = quantity_option(size, "byte", "--bytes")
    frame = collective_table(topo, collective, quantity, ranks=ranks)
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "collective": collective,
                    "system": topo.name,
                    "nodes": topo.nodes,
                    "gpus_per_node": topo.gpus_per_node,
                    "size": quantity_to_json(quantity.to("byte")),
                    "results": [
                        {
                            "algorithm": row["algorithm"],
                            "ranks": int(row["ranks"]),
                            "nodes": int(row["nodes"]),
                            "time": quantity_to_json(Q_(row["time_ms"], "ms")),
                            "algbw": quantity_to_json(Q_(row["algbw_GBps"], "GB/s")),
                            "busbw": quantity_to_json(Q_(row["busbw_GBps"], "GB/s")),
                        }
                        for _, row in frame.iterrows()
                    ],
                },
                indent=2,
            )
        )
        return
    table = Table(
        title=f"{collective} of {quantity.to('MB').magnitude:,.3f} MB on {topo.name}",
        title_justify="left",
    )
    for column in ("algorithm", "ranks", "nodes", "time (ms)", "algbw (GB/s)", "busbw (GB/s)"):
        table.add_column(column, justify="left" if column == "algorithm" else "right")
    for _, row in frame.iterrows():
        table.add_row(
            row["algorithm"],
            str(row["ranks"]),
            str(row["nodes"]),
            f"{row['time_ms']:,.4f}",
            f"{row['algbw_GBps']:,.2f}",
            f"{row['busbw_GBps']:,.2f}",
        )
    console = stdout_console()
    console.print(table)
    console.print(f"[dim]{topo.describe()}[/dim]", highlight=False)
    console.print(
        "[dim]busbw = algbw x 2(n-1)/n (all-reduce), x (n-1)/n (all-gather, reduce-scatter, "
        "all-to-all), as nccl-tests reports it.[/dim]"
    )


def _add_collective_command(
    name: str, collective: str, help_text: str, default_ranks: int | None = None
) -> None:
    """Register ``mlcost comm NAME``: the same options for every collective."""

    def command(
        system: SystemOption = "dgx-h100",
        nodes: NodesOption = None,
        size: BytesOption = "1GB",
        ranks: RanksOption = default_ranks,
        as_json: JsonOption = False,
    ) -> None:
        _collective(collective, system, nodes, size, ranks, as_json)

    command.__doc__ = help_text
    comm_app.command(name)(command)


COLLECTIVE_COMMANDS: tuple[tuple[str, str, str, int | None], ...] = (
    ("allreduce", "all-reduce", "All-reduce: ring, tree, hierarchical and the fastest.", None),
    ("allgather", "all-gather", "All-gather (size = the gathered array, as nccl-tests).", None),
    ("reducescatter", "reduce-scatter", "Reduce-scatter (size = the whole input array).", None),
    ("alltoall", "all-to-all", "All-to-all (pairwise exchange; size = bytes per rank).", None),
    ("sendrecv", "point-to-point", "Send/receive between two GPUs (across nodes if apart).", 2),
    ("broadcast", "broadcast", "Broadcast from one root (pipelined chain).", None),
)
for _name, _collective_name, _help, _ranks in COLLECTIVE_COMMANDS:
    _add_collective_command(_name, _collective_name, _help, _ranks)


def parallel_command(
    model: Annotated[str, typer.Argument(help="Model name, alias or spec YAML.")],
    system: SystemOption = "dgx-h100",
    nodes: NodesOption = None,
    global_batch: Annotated[
        int, typer.Option("--global-batch", help="Sequences per optimizer step.")
    ] = 1024,
    seq: Annotated[int, typer.Option("--seq", "-s", help="Sequence length (tokens).")] = 4096,
    precision: Annotated[str, typer.Option(help="fp32 | fp16-mixed | bf16-mixed | bf16 | fp8")] = (
        "bf16-mixed"
    ),
    optimizer: Annotated[str, typer.Option(help="adamw | adam | sgd | lion | ...")] = "adamw",
    top: Annotated[int, typer.Option("--top", help="How many configurations to show.")] = 10,
    rank_by: Annotated[
        str, typer.Option("--rank-by", help="time (step time) | cost (GPU-seconds per token)")
    ] = "time",
    all_gpus: Annotated[
        bool,
        typer.Option("--all-gpus/--any-gpus", help="Use every GPU, or allow fewer (cost)."),
    ] = True,
    as_json: JsonOption = False,
) -> None:
    """Best parallel configurations (dp/tp/pp/cp, micro-batch, ZeRO, recompute) that fit."""
    catalog = default_catalog()
    spec = load_spec(model) if model.lower().endswith((".yaml", ".yml")) else catalog.get(model)
    if not isinstance(spec, TransformerSpec):
        raise MlcostError(f"MODEL: {model!r} is a {spec.KIND}; the search takes transformers")
    config = TrainingConfig(
        sequence_length=seq,
        precision=precision,
        optimizer=optimizer,
    )
    topo = topology(_system(system), nodes=nodes)
    frame = search(
        spec,
        topo,
        global_batch,
        config=config,
        rank_by=rank_by,
        use_all_gpus=all_gpus,
    )
    candidates = int(frame.attrs.get("candidates", 0))
    fitting = len(frame)
    shown = frame.head(top)
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "model": spec.name,
                    "system": topo.name,
                    "nodes": topo.nodes,
                    "gpus": topo.gpus,
                    "global_batch": global_batch,
                    "sequence_length": seq,
                    "candidates": candidates,
                    "fitting": fitting,
                    "configurations": json.loads(shown.to_json(orient="records")),
                },
                indent=2,
            )
        )
        return
    if shown.empty:
        raise MlcostError(
            f"parallel: none of the {candidates} configurations of {spec.name} fits on "
            f"{topo.gpus} x {topo.accelerator.name}; add nodes or lower --seq"
        )
    table = Table(
        title=f"{spec.name} on {topo.nodes} x {topo.name} ({topo.gpus} GPUs), global batch "
        f"{global_batch} x {seq} tokens: {fitting} of {candidates} configurations fit",
        title_justify="left",
    )
    columns = (
        "#",
        "dp",
        "tp",
        "pp",
        "v",
        "cp",
        "mb",
        "m",
        "ZeRO",
        "SP",
        "recompute",
        "GiB/GPU",
        "step (s)",
        "exposed comm (s)",
        "bubble (s)",
        "MFU",
    )
    for column in columns:
        table.add_column(column, justify="left" if column == "recompute" else "right")
    for rank, (_, row) in enumerate(shown.iterrows(), start=1):
        table.add_row(
            str(rank),
            str(row["dp"]),
            str(row["tp"]),
            str(row["pp"]),
            str(row["v"]),
            str(row["cp"]),
            str(row["micro_batch"]),
            str(row["micro_batches"]),
            str(row["zero"]),
            "yes" if row["sequence_parallel"] else "",
            row["recompute"],
            f"{row['memory_GiB']:.1f}",
            f"{row['step_s']:.3f}",
            f"{row['exposed_comm_s']:.3f}",
            f"{row['bubble_s']:.3f}",
            f"{row['mfu']:.1%}",
        )
    console = stdout_console()
    console.print(table)
    console.print(f"[dim]{topo.describe()}[/dim]", highlight=False)
