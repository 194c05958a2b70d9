"""``mlcost comm ...`` (collective times, nccl-tests style) and ``mlcost parallel`` (the best
layouts of a system)."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table
from rich.text import Text

from mlcost.cli.options import (
    TRAINING,
    ImplementationOption,
    JsonOption,
    ModelArgument,
    NodesOption,
    SystemGpuOption,
    quantity_option,
    resolve_model,
    with_options,
)
from mlcost.cli.output import print_json, print_short, stdout_console
from mlcost.comms import collective_table
from mlcost.errors import MlcostError
from mlcost.parallel import search
from mlcost.results import SHORT_LINES, SHORT_WIDTH, short_rows
from mlcost.systems import system
from mlcost.units import Q_
from mlcost.workload import TrainingConfig

if TYPE_CHECKING:
    import pandas as pd

comm_app = typer.Typer(
    help="Collective times on a system (alpha-beta model), reported like nccl-tests.",
    no_args_is_help=True,
)

SystemOption = Annotated[
    str,
    typer.Option(
        "--system", help="Node, cluster or GPU: catalog name or spec path, e.g. dgx-h100."
    ),
]
BytesOption = Annotated[
    str, typer.Option("--bytes", help="Message size, e.g. 1GB, 256MiB or 1e9 (bytes).")
]
RanksOption = Annotated[
    int | None, typer.Option("--ranks", help="Ranks taking part (default: every GPU).")
]


def _collective(
    collective: str,
    target: str,
    gpu: str | None,
    nodes: int | None,
    size: str,
    ranks: int | None,
    shown: tuple[bool, bool],
) -> None:
    as_json, every = shown
    resolved = system(target, accelerator=gpu, nodes=nodes)
    quantity = quantity_option(size, "byte", "--bytes")
    frame = collective_table(resolved, collective, quantity, ranks=ranks)
    if as_json:
        print_json(
            {
                "collective": collective,
                "system": resolved.name,
                "gpu": resolved.accelerator.name,
                "nodes": resolved.nodes,
                "gpus_per_node": resolved.gpus_per_node,
                "size": quantity.to("byte"),
                "results": [
                    {"algorithm": row["algorithm"], "ranks": int(row["ranks"]),
                     "nodes": int(row["nodes"]), "time": Q_(row["time_ms"], "ms"),
                     "algbw": Q_(row["algbw_GBps"], "GB/s"),
                     "busbw": Q_(row["busbw_GBps"], "GB/s")}
                    for _, row in frame.iterrows()
                ],
            }
        )  # fmt: skip
        return
    title = f"{collective} of {quantity.to('MB').magnitude:,.3f} MB on {resolved.name}"
    if not every:
        fastest = frame.iloc[int(frame["time_ms"].to_numpy().argmin())]
        lines = textwrap.wrap(
            f"{title}, {fastest['ranks']} ranks on {fastest['nodes']} node(s): fastest "
            f"{fastest['algorithm']}, {fastest['time_ms']:,.4f} ms",
            SHORT_WIDTH, subsequent_indent="  ",
        )  # fmt: skip
        lines += short_rows(
            [(row["algorithm"], f"{row['time_ms']:,.4f} ms, algbw {row['algbw_GBps']:,.2f} GB/s, "
                                f"busbw {row['busbw_GBps']:,.2f} GB/s")
             for _, row in frame.iterrows()]
        )  # fmt: skip
        lines += textwrap.wrap(resolved.describe(), SHORT_WIDTH, subsequent_indent="  ")
        print_short(lines, "--all: the nccl-tests table with ranks and nodes, and busbw's rule")
        return
    table = Table(title=title, title_justify="left")
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
    console.print(Text(resolved.describe(), style="dim"))
    console.print(
        Text(
            "busbw = algbw x 2(n-1)/n (all-reduce), x (n-1)/n (all-gather, reduce-scatter, "
            "all-to-all), as nccl-tests reports it.",
            style="dim",
        )
    )


def _add_collective_command(
    name: str, collective: str, help_text: str, default_ranks: int | None = None
) -> None:
    """Register ``mlcost comm NAME``: the same options for every collective."""

    def command(
        target: SystemOption = "dgx-h100",
        gpu: SystemGpuOption = None,
        nodes: NodesOption = None,
        size: BytesOption = "1GB",
        ranks: RanksOption = default_ranks,
        as_json: JsonOption = False,
        every: Annotated[
            bool, typer.Option("--all", help="The nccl-tests table (default: a few lines).")
        ] = False,
    ) -> None:
        _collective(collective, target, gpu, nodes, size, ranks, (as_json, every))

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


@with_options(TRAINING)
def parallel_command(
    model: ModelArgument,
    config: TrainingConfig,
    target: SystemOption = "dgx-h100",
    gpu: SystemGpuOption = None,
    nodes: NodesOption = None,
    gpus: Annotated[
        int | None,
        typer.Option("--gpus", help="Number of GPUs (default: every GPU of the nodes).", min=1),
    ] = None,
    global_batch: Annotated[
        int, typer.Option("--global-batch", help="Sequences per optimizer step.")
    ] = 1024,
    top: Annotated[int, typer.Option("--top", help="How many layouts to show.", min=1)] = 10,
    rank_by: Annotated[
        str, typer.Option("--rank-by", help="time (step time) | cost (GPU-seconds per token)")
    ] = "time",
    all_gpus: Annotated[
        bool,
        typer.Option("--all-gpus/--any-gpus", help="Use every GPU, or allow fewer (cost)."),
    ] = True,
    implementation: ImplementationOption = None,
    as_json: JsonOption = False,
    every: Annotated[
        bool, typer.Option("--all", help="The table of the --top layouts (default: the best).")
    ] = False,
) -> None:
    """Best parallel layouts (dp/tp/pp/cp, micro-batch, ZeRO, recompute) that fit."""
    spec = resolve_model(model)
    resolved = system(target, accelerator=gpu, nodes=nodes)
    result = search(
        spec, resolved, global_batch, config=config, rank_by=rank_by, use_all_gpus=all_gpus,
        implementation=implementation, gpus=gpus,
    )  # fmt: skip
    shown = result.frame.head(top)
    if as_json:
        print_json(
            {
                "model": spec.name, "system": resolved.name,
                "gpu": resolved.accelerator.name, "nodes": resolved.nodes,
                "gpus": resolved.gpus, "global_batch": global_batch,
                "sequence_length": config.sequence_length, "candidates": result.candidates,
                "fitting": result.fitting, "configurations": shown.to_dict(orient="records"),
            }
        )  # fmt: skip
        return
    if shown.empty:
        raise MlcostError(
            f"parallel: none of the {result.candidates} layouts of {spec.name} fits on "
            f"{resolved.gpus} x {resolved.accelerator.name}; add nodes or lower --seq"
        )
    about = (
        f"{spec.name} on {resolved.nodes} x {resolved.name} ({resolved.gpus} GPUs), global "
        f"batch {global_batch} x {config.sequence_length} tokens"
    )
    if not every:
        best = shown.iloc[0]
        rows = [
            ("best layout", _layout_text(best)),
            ("step time", f"{best['step_s']:.3f} s (exposed comm {best['exposed_comm_s']:.3f} s, "
                          f"bubble {best['bubble_s']:.3f} s)"),
            ("MFU", f"{best['mfu']:.1%}"),
            ("memory", f"{best['memory_GiB']:.1f} GiB per GPU"),
        ]  # fmt: skip
        runners = [
            short_rows([(f"#{rank}", f"{_layout_text(row)}: {row['step_s']:.3f} s, "
                                     f"{row['mfu']:.1%}, {row['memory_GiB']:.1f} GiB")],
                       indent="  ")
            for rank, (_, row) in enumerate(shown.iloc[1 : RUNNERS_UP + 1].iterrows(), 2)
        ]  # fmt: skip
        lines = textwrap.wrap(
            f"{about}: {result.fitting} of {result.candidates} layouts fit; fastest first"
            if rank_by == "time" else
            f"{about}: {result.fitting} of {result.candidates} layouts fit; cheapest first",
            SHORT_WIDTH, subsequent_indent="  ",
        )  # fmt: skip
        lines += short_rows(rows)
        if runners:
            lines.append("runners-up")
        for runner in runners:  # as many as the lines allow (the last: where the rest is)
            if len(lines) + len(runner) >= SHORT_LINES:
                break
            lines += runner
        print_short(lines, "--all: the table of the --top layouts, with every column")
        return
    table = Table(
        title=f"{about}: {result.fitting} of {result.candidates} layouts fit",
        title_justify="left",
    )
    columns = ("#", "dp", "tp", "pp", "v", "cp", "mb", "m", "ZeRO", "SP", "recompute",
               "GiB/GPU", "step (s)", "exposed comm (s)", "bubble (s)", "MFU")  # fmt: skip
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
    console.print(Text(resolved.describe(), style="dim"))


#: Layouts after the best that the short answer of ``mlcost parallel`` lists.
RUNNERS_UP = 3


def _layout_text(row: pd.Series) -> str:
    """One layout of :func:`mlcost.parallel.search`'s frame in a few words."""
    split = f"dp {row['dp']} tp {row['tp']} pp {row['pp']}"
    split += f" (v {row['v']})" if row["v"] > 1 else ""
    split += f" cp {row['cp']}" if row["cp"] > 1 else ""
    extras = [f"mb {row['micro_batch']} x {row['micro_batches']}", f"ZeRO-{row['zero']}"]
    extras += ["SP"] if row["sequence_parallel"] else []
    extras += [] if row["recompute"] == "none" else [f"recompute {row['recompute']}"]
    return ", ".join([split, *extras])
