"""Prefill and decode on the roofline, tensor-parallel communication, speculative decoding and
continuous batching.

Time of a forward (:func:`forward_seconds`): every row of the forward table
(:mod:`mlcost.serving.workload`) on the roofline of the GPU's ceilings, the same measured
ceilings and the same per-operator model the training step uses (:mod:`mlcost.roofline`,
:func:`mlcost.timing.operator_times`): ``max(F / (peak · eta), B / (bandwidth · eta_m))`` per
row plus the gap between kernels. A prefill is compute-bound (``b·P`` tokens per weight read);
a decode step reads every weight and the whole KV cache for ``b`` tokens, so it is memory-bound
until ``b`` approaches the ridge point. The engine (:class:`mlcost.specs.Engine`) adds its cost
per kernel and, where it dispatches a step eagerly, the host's time: engines replay decode
steps from CUDA graphs (about 1.3 us per kernel on an H200) and launch prefills from the host.

Tensor parallelism of degree ``t``: each layer ends its attention and its MLP with an all-reduce
of the ``b·q·h`` activations (Shoeybi et al. 2019, section 3), ``2·L`` all-reduces per forward on
the system's links (:func:`mlcost.comms.placement.collective_seconds`), not overlapped (each
needs the previous layer's result).

Speculative decoding (Leviathan et al. 2023, "Fast Inference from Transformers via Speculative
Decoding", eq. 1 and section 3.4): a draft model proposes ``k`` tokens, the target verifies them
in one forward of ``k + 1`` tokens; with acceptance rate ``alpha`` a step yields
``(1 - alpha^(k+1)) / (1 - alpha)`` tokens on average.

Continuous batching (Yu et al. 2022, "Orca", section 3; vLLM): ``B`` sequences decode together;
with prompts of ``P`` and outputs of ``O`` tokens, ``B / O`` sequences finish (and as many start)
per decode step on average, so an iteration is one decode step at the mean context plus the
prefill of ``B·P / O`` tokens. The mean context a generated token sees is
``E[P·O + O^2/2] / E[O]`` (each sequence's ``O`` tokens see ``P`` to ``P + O`` cached tokens).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mlcost.arrays import Real, plain
from mlcost.checks import counts, finite
from mlcost.comms.placement import collective_seconds, placement
from mlcost.errors import MlcostError
from mlcost.records import replace
from mlcost.roofline import Ceilings
from mlcost.serving.formats import compute_format
from mlcost.specs import Accelerator, Engine
from mlcost.systems import System
from mlcost.timing import StepTime, operator_times
from mlcost.units import Q_
from mlcost.workload.table import OperatorTable


def serving_ceilings(
    gpu: Accelerator, weights: str = "bf16", kv_format: str = "bf16"
) -> dict[str, Ceilings]:
    """The GPU's ceilings (datasheet or measured profile, :meth:`Ceilings.from_accelerator`) for
    the 16-bit operators (key ``""``) and for the GEMMs of ``weights`` (``fp8``), without a
    launch overhead per operator row: the engine's cost per kernel replaces it
    (:func:`forward_seconds`). An FP8 KV cache adds the FP8 ceilings where the GPU has an FP8
    peak, for the attention of an engine that computes it in FP8 (rows without a ceiling of
    their format run at the 16-bit one).

    Without the output-tile wave model of training GEMMs: the GEMMs of a few tokens that
    serving runs (GEMV and split-K kernels, e.g. TensorRT-LLM's and vLLM's skinny-GEMM paths)
    spread the reduction dimension over the SMs instead of leaving SMs idle for want of output
    tiles, so their time is set by the bytes they read, not by a 128-row tile mostly empty."""
    overrides: dict[str, Any] = {"wave_quantization": False, "launch_overhead": Q_(0, "us")}
    ceilings = {"": Ceilings.from_accelerator(gpu, "bf16", **overrides)}
    fmt = compute_format(weights)
    if fmt != "bf16":
        ceilings[fmt] = Ceilings.from_accelerator(gpu, fmt, **overrides)
    if kv_format == "fp8" and "fp8" in gpu.formats and "fp8" not in ceilings:
        ceilings["fp8"] = Ceilings.from_accelerator(gpu, "fp8", **overrides)
    return ceilings


def forward_time(table: OperatorTable, ceilings: dict[str, Ceilings]) -> StepTime:
    """Every operator of a forward table on the roofline (:func:`mlcost.timing.operator_times`),
    without the engine's cost per kernel (:func:`forward_seconds` adds it)."""
    return operator_times(table, ceilings)


def roofline_seconds(table: OperatorTable, ceilings: dict[str, Ceilings], engine: Engine) -> Real:
    """The seconds of ``table``'s rows on the roofline (:func:`forward_time`) as ``engine``
    runs them: its grouped MoE kernel one launch (and one kernel latency) per layer's
    experts. What engines with the same grouping share (:meth:`mlcost.ServePlan.timing`
    reuses it across the engines of a search)."""
    table = replace(
        table, metadata={**table.metadata, "grouped_experts": engine.grouped_expert_gemm}
    )
    return forward_time(table, ceilings).seconds


def engine_counts(engine: Engine, table: OperatorTable, layers: int) -> tuple[float, float]:
    """Kernels and host operations of one forward of ``layers`` layers under ``engine``: its
    counts per layer and outside the layers, or one per operator row where it gives none.

    The experts of an MoE layer are rows repeated for each local expert (``count`` = MoE layers
    x the ``gemm_group`` local experts, more than ``layers``); an engine with
    ``grouped_expert_gemm`` runs each of them as one launch per layer for all experts (vLLM's
    and SGLang's fused_moe, TensorRT-LLM's CUTLASS MoE), one per expert otherwise."""
    counts(layers, "layers")
    # (each array's own max: numpy's module-level wrapper costs more than the reduction)
    local = max((float(np.asarray(op.gemm_group).max()) for op in table.operators), default=0.0)
    grouped = engine.grouped_expert_gemm and local > 0

    def launches(op: Any) -> float:
        count = float(np.asarray(op.count).max())
        return count / local if grouped and count > layers else count

    rows = float(sum(launches(op) for op in table.operators))

    def count(per_layer: int | None, outside: int | None) -> float:
        return rows if per_layer is None else float(per_layer * layers + (outside or 0))

    kernels = count(engine.kernels_per_layer, engine.kernels_outside_layers)
    host = count(engine.host_ops_per_layer, engine.host_ops_outside_layers)
    return kernels, host if engine.host_ops_per_layer is not None else kernels


def forward_seconds(
    table: OperatorTable,
    ceilings: dict[str, Ceilings],
    engine: Engine,
    *,
    layers: int,
    graph: bool,
    roofline: Real | None = None,
    counts: tuple[float, float] | None = None,
    factor: float = 1.0,
) -> Real:
    """Seconds of the forward ``table`` under ``engine`` (arrays in sweeps): the roofline of its
    rows plus ``K`` kernels' overhead each, replayed from a CUDA graph (``graph``) or launched;
    a launched step waits for its host, ``max(GPU, host ops x dispatch overhead)``
    (:class:`mlcost.specs.Engine`; the engine's own work per step, ``step_overhead``, is added
    once per engine step by its caller, not per forward). ``roofline`` and ``counts``: the
    rows' seconds and the kernels and host operations when the caller has them
    (:func:`roofline_seconds` and :func:`engine_counts` of the same table, ceilings and
    engine). ``factor``: the GPU vendor's correction of the GPU's seconds
    (:func:`mlcost.serving.band.serving_calibration`; 1: the uncorrected model)."""
    kernels, host_ops = engine_counts(engine, table, layers) if counts is None else counts
    if roofline is None:
        roofline = roofline_seconds(table, ceilings, engine)
    gpu = (np.asarray(roofline) + kernels * engine.kernel_seconds(graph)) * factor
    host = 0.0 if graph else host_ops * engine.dispatch_seconds
    return plain(np.maximum(gpu, host))


def tensor_parallel_seconds(
    system: System,
    tensor_parallel: int,
    hidden_size: int,
    layers: int,
    tokens: Real,
    element_bytes: float = 2.0,
) -> Real:
    """``2·L`` all-reduces of ``tokens · h · e`` bytes over ``t`` GPUs of ``system`` (0 for
    ``t = 1``)."""
    if tensor_parallel == 1:
        return plain(np.zeros(np.shape(tokens)))
    size = np.asarray(tokens, dtype=np.float64) * hidden_size * element_bytes
    where = placement(system, tensor_parallel)
    return plain(2 * layers * np.asarray(collective_seconds(system, "all-reduce", size, where)))


def expert_parallel_seconds(
    system: System,
    expert_parallel: int,
    hidden_size: int,
    moe_layers: int,
    tokens: Real,
    top_k: int,
    element_bytes: float = 2.0,
) -> Real:
    """Expert parallelism with attention data parallelism: per MoE layer a dispatch and a
    combine all-to-all over the ``e`` ranks, each rank sending its ``tokens`` tokens' ``k``
    copies of ``h`` values, ``T·k·h·e_b`` bytes per rank (the pairwise all-to-all of
    :mod:`mlcost.comms.collectives`, ``(n-1)·alpha + (n-1)/n·S/beta``: the share routed to the
    rank's own experts stays), ``2·L_moe`` of them per forward on the system's links, not
    overlapped (each layer's experts wait for their tokens; Rajbhandari et al. 2022,
    "DeepSpeed-MoE", section 5; Lepikhin et al. 2020, "GShard", section 2.2). 0 for ``e = 1``."""
    counts(top_k, "top_k")
    if expert_parallel == 1:
        return plain(np.zeros(np.shape(tokens)))
    size = np.asarray(finite(tokens, "tokens"), dtype=np.float64) * top_k * hidden_size
    where = placement(system, expert_parallel)
    seconds = collective_seconds(system, "all-to-all", size * element_bytes, where)
    return plain(2 * moe_layers * np.asarray(seconds))


def expected_accepted_tokens(acceptance: Real, draft_tokens: int) -> Real:
    """Tokens a speculative step yields on average, ``(1 - a^(k+1)) / (1 - a)`` (``k + 1`` when
    every draft is accepted; Leviathan et al. 2023, eq. 1)."""
    a = np.asarray(finite(acceptance, "acceptance"), dtype=np.float64)
    if np.any(a > 1.0):
        raise MlcostError(f"acceptance: got {acceptance!r}, expected a rate in [0, 1]")
    k = float(counts(draft_tokens, "draft_tokens"))
    safe = np.where(a < 1.0, a, 0.0)
    return plain(np.where(a < 1.0, (1 - safe ** (k + 1)) / (1 - safe), k + 1))


def mean_context(prompt: Sequence[float] | Real, output: Sequence[float] | Real) -> float:
    """Mean context a generated token attends to over a request mix: ``E[P·O + O^2/2] / E[O]``
    (``prompt`` and ``output`` paired samples, or one value each)."""
    p = np.asarray(finite(prompt, "prompt"), dtype=np.float64)
    o = np.asarray(finite(output, "output", strict=True), dtype=np.float64)
    return float(np.mean(p * o + o * o / 2) / np.mean(o * np.ones_like(p)))


def batching_iteration_seconds(
    decode_step: Real, prefill_per_token: Real, batch: Real, prompt: float, output: float
) -> Real:
    """One iteration of continuous batching: a decode step of the ``batch`` plus the prefill of
    the ``batch · P / O`` prompt tokens of the sequences that replace those finishing."""
    for value, name in ((decode_step, "decode_step"), (prefill_per_token, "prefill_per_token"),
                        (batch, "batch"), (prompt, "prompt")):  # fmt: skip
        finite(value, name)
    finite(output, "output", strict=True)
    return plain(
        np.asarray(decode_step)
        + np.asarray(batch) * prompt / output * np.asarray(prefill_per_token)
    )


def _check_timing(*, prefill: Real, iteration: Real, tokens: Real, output: float) -> None:
    """The arguments of :func:`prefill_share` (and so :func:`time_to_first_token`): times and
    tokens finite and >= 0, the iteration and the output length > 0."""
    finite(prefill, "prefill")
    finite(iteration, "iteration", strict=True)
    finite(tokens, "tokens")
    finite(output, "output", strict=True)


def prompts_per_prefill(prefill_tokens: int | None, prompt: float) -> int:
    """Prompts of ``prompt`` tokens one prefill forward takes: ``max(1, floor(C / P))`` for an
    engine that batches admitted prompts into forwards of up to ``C = prefill_tokens`` tokens
    (vLLM's chunked prefill with ``max_num_batched_tokens``, TensorRT-LLM's ``max_num_tokens``,
    SGLang's ``chunked_prefill_size``; Agrawal et al. 2024, "Sarathi-Serve", section 4), 1 for
    an engine that prefills each prompt alone (``None``). A prompt longer than ``C`` is split
    into chunks, each already compute-bound at engine budgets of thousands of tokens, so it is
    priced as one prefill."""
    finite(prompt, "prompt")
    if prefill_tokens is None:
        return 1
    counts(prefill_tokens, "prefill_tokens")
    return max(1, int(prefill_tokens // max(float(prompt), 1.0)))


def prefill_share(service: Real, iteration: Real, tokens: Real, output: float) -> Real:
    """Share of the time a replica spends on prefills, ``rho = (b_tokens / O) · S / iteration``
    (the ``b·E / O`` prompts admitted per iteration), ``S = service`` the prefill work one
    admitted prompt adds to the iteration: its share of a batched prefill forward, ``P`` times
    the batched per-token time (:func:`batching_iteration_seconds` charges exactly that), or its
    prefill alone for an engine that prefills prompts one at a time. Below 1 by construction,
    since the iteration contains those prefills. (Charging the queue a prompt's prefill *alone*
    under batched prefill counted the shared weight read once per prompt and could put ``rho``
    above 1, where the M/D/1 wait turns negative.)"""
    _check_timing(prefill=service, iteration=iteration, tokens=tokens, output=output)
    return plain(np.asarray(tokens) / output * np.asarray(service) / np.asarray(iteration))


def time_to_first_token(
    prefill: Real,
    step: Real,
    iteration: Real,
    tokens: Real,
    output: float,
    service: Real | None = None,
) -> Real:
    """Mean time to first token under continuous batching: the rest of the running decode step
    (half of one on average), the wait for the prompts queued ahead for their prefill, and the
    prompt's own prefill (``prefill``, the forward it rides in). Prompts arriving at random form
    an M/D/1 queue for the prefill work, each taking ``S = service`` of it (:func:`prefill_share`;
    ``prefill`` when not given, an engine that prefills prompts one at a time), at load ``rho``;
    its mean wait is ``rho · S / (2 (1 - rho))`` (Pollaczek-Khinchine; Kleinrock 1975, "Queueing
    Systems", vol. 1, section 5.7). Under batched prefill the queue is served in forwards of
    several prompts; counting each prompt at its share ``S`` is the fluid approximation of that
    batch service."""
    finite(step, "step")
    s = np.asarray(prefill if service is None else service, dtype=np.float64)
    rho = np.asarray(prefill_share(s, iteration, tokens, output), dtype=np.float64)
    return plain(
        np.asarray(prefill, dtype=np.float64) + np.asarray(step) / 2 + rho * s / (2 * (1 - rho))
    )


def closed_loop_time_to_first_token(
    prefill: Real, iteration: Real, users: Real, output: float, frontend: Real = 0.0
) -> Real:
    """Mean time to first token when ``N = users`` clients each send their next request the
    moment the previous one ends (a closed loop without think time: genai-perf's and
    perf_analyzer's ``--concurrency``), by exact mean value analysis of the closed network
    (Reiser and Lavenberg 1980, "Mean-Value Analysis of Closed Multichain Queuing Networks",
    JACM 27(2)): the prefill server (``S = prefill`` per prompt, first come first served) and
    the decode phase, a delay of ``Z = (O - 1) · iteration`` during which a client needs no
    prefill. A request arrives with a completion, at an iteration's end, so each prefill queued
    ahead of it is waited in full; by the arrival theorem it finds the queue of the other
    ``n - 1`` clients::

        R(n) = S · (1 + Q(n - 1)),  X(n) = n / (Z + R(n)),  Q(n) = X(n) · R(n),  Q(0) = 0

    and TTFT = ``R(N)``; the interactive response-time law ``N = X · (R + Z)`` holds by
    construction (one client: ``S``; no decode phase: ``N · S``, the clients queued in turn).
    ``frontend`` (the serving front end's time per request, :attr:`mlcost.specs.Engine.
    request_overhead`) is a pure delay on the first token's path, off the GPU's: it joins the
    delay, ``Z = (O - 1) · iteration + frontend``, and the first token, TTFT = ``R(N) +
    frontend``. Arrays (one configuration per element) run the recursion together."""
    s = np.asarray(finite(prefill, "prefill"), dtype=np.float64)
    f = np.asarray(finite(frontend, "frontend"), dtype=np.float64)
    z = (float(finite(output, "output", strict=True)) - 1) * np.asarray(
        finite(iteration, "iteration"), dtype=np.float64
    ) + f
    n_users = np.asarray(counts(users, "users"), dtype=np.float64)
    s, z, f, n_users = np.broadcast_arrays(s, z, f, n_users)
    queue = np.zeros(s.shape)
    response = s.copy()
    for n in range(1, int(np.max(n_users)) + 1):
        active = n <= n_users  # elements whose recursion has not reached its N yet
        step = s * (1 + queue)
        response = np.where(active, step, response)
        total = z + step
        safe = np.where(total > 0, total, 1.0)
        queue = np.where(active, np.where(total > 0, n / safe * step, 0.0), queue)
    return plain(response + f)


def closed_loop_steady_state(
    prefill: Real,
    step: Real,
    prompt_seconds: Real,
    users: Real,
    output: float,
    tokens: Real = 1.0,
    rounds: int = 60,
    frontend: Real = 0.0,
) -> tuple[Real, Real, Real]:
    """The closed loop of ``N = users`` clients in steady state: ``(iteration, ttft,
    request_rate)``. Each request spends its first token's wait (TTFT,
    :func:`closed_loop_time_to_first_token`) and ``O - 1`` decode iterations, so the
    response-time law gives its rate, ``X = N / (TTFT + (O - 1) · I / tokens)`` (``tokens`` per
    decode step); the iteration carries the decode ``step`` and the prefills of the ``X · I``
    prompts that arrive during it, ``prompt_seconds`` each, ``I = step + X · I · prompt_seconds``,
    so ``I = step / (1 - X · prompt_seconds)``. The two are solved together by damped fixed-point
    iteration (``rounds``): unlike the open queue, the loop can never be overloaded, since fewer
    requests arrive while the iteration grows. One client: TTFT = its prefill, ``I = step /
    (1 - X · prompt_seconds)`` with ``X = 1 / (S + (O - 1) I)``. ``frontend``: the front end's
    time per request, in the TTFT and so in each client's cycle
    (:func:`closed_loop_time_to_first_token`)."""
    s = np.asarray(finite(prefill, "prefill"), dtype=np.float64)
    t = np.asarray(finite(step, "step", strict=True), dtype=np.float64)
    sp = np.asarray(finite(prompt_seconds, "prompt_seconds"), dtype=np.float64)
    n = np.asarray(counts(users, "users"), dtype=np.float64)
    per_step = np.asarray(finite(tokens, "tokens", strict=True), dtype=np.float64)
    o = float(finite(output, "output", strict=True))

    def response(iteration: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ttft = np.asarray(
            closed_loop_time_to_first_token(s, iteration / per_step, n, o, frontend),
            dtype=np.float64,
        )
        return ttft, n / (ttft + (o - 1) * iteration / per_step)

    iteration = t * np.ones(np.broadcast(s, t, sp, n, per_step).shape)
    for _ in range(int(counts(rounds, "rounds"))):
        _, rate = response(iteration)
        busy = np.minimum(rate * sp, 0.95)  # below 1: the damped step never overshoots past it
        iteration = (iteration + t / (1 - busy)) / 2
    ttft, rate = response(iteration)
    return plain(iteration), plain(ttft), plain(rate)


__all__ = [
    "batching_iteration_seconds",
    "closed_loop_steady_state",
    "closed_loop_time_to_first_token",
    "engine_counts",
    "expected_accepted_tokens",
    "expert_parallel_seconds",
    "forward_seconds",
    "forward_time",
    "mean_context",
    "prefill_share",
    "prompts_per_prefill",
    "roofline_seconds",
    "serving_ceilings",
    "tensor_parallel_seconds",
    "time_to_first_token",
]
