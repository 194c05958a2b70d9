"""The data pipeline (the textbook chapter's pipeline section): can the input keep up?

* storage ``T_storage = min(B_disk, B_network)``, effective ``T_storage · F_access`` for random
  access (the chapter: F_access ≈ 0.1);
* preprocessing ``workers / t_transform`` (batches/s), tokenization time ``tokens / rate``;
* host-to-device transfer ``bytes / B_PCIe``;
* training throughput ``min(preprocessing, transfer, compute)`` (the "min of three");
* the data-parallel gradient all-reduce volume ``2 × gradient bytes`` over the network (the
  chapter's network wall; the ring algorithm sends ``2(N-1)/N`` of it);
* per-step stage times of one GPU's loader (:func:`data_stage_times`), overlapped by
  prefetching (:func:`pipelined_time`, F-36), the workers needed (F-38), the feed-limited
  utilization (F-34) and the prefetch buffer's host memory.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pint

from mlcost.arrays import Real
from mlcost.units import Q_, in_unit


def storage_throughput(
    disk: pint.Quantity, network: pint.Quantity | None = None, *, access_factor: float = 1.0
) -> pint.Quantity:
    """``min(disk, network) · F_access``."""
    best = (
        disk
        if network is None
        else Q_(np.minimum(in_unit(disk, "GB/s"), in_unit(network, "GB/s")), "GB/s")
    )
    return (best * access_factor).to("GB/s")


def tokenization_time(
    tokens: Real, rate_per_core: pint.Quantity, workers: int = 1
) -> pint.Quantity:
    """``tokens / (rate · workers)``."""
    return (Q_(tokens, "token") / (rate_per_core * workers)).to("ms")


def transfer_time(batch_bytes: pint.Quantity, bandwidth: pint.Quantity) -> pint.Quantity:
    """Host-to-device copy of one batch: ``bytes / bandwidth``."""
    return (batch_bytes / bandwidth).to("ms")


def training_throughput(*rates: pint.Quantity) -> pint.Quantity:
    """The slowest stage bounds the pipeline: ``min`` of the stage rates (same units)."""
    unit = rates[0].units
    return Q_(min(float(rate.to(unit).magnitude) for rate in rates), unit)


def data_stage_times(
    tokens_per_step: Real,
    *,
    storage: pint.Quantity | None,
    stored_bytes_per_token: pint.Quantity,
    readers_sharing_storage: Real = 1,
    access_factor: float = 1.0,
    tokenization_rate: pint.Quantity | None = None,
    workers: Real = 1,
    host_link: pint.Quantity | None = None,
    token_id_bytes: pint.Quantity | None = None,
) -> dict[str, pint.Quantity]:
    """Seconds one GPU's input pipeline spends per step in each stage (the chapter's section on
    data pipelines, F-29 to F-39):

    * ``read``: ``tokens · stored bytes per token / (T_storage · F_access / readers)``, the
      storage shared by the ``readers`` (GPUs of a node) that stream from it;
    * ``preprocess``: ``tokens / (rate per core · workers)`` (F-31, F-39); zero when
      ``tokenization_rate`` is None (pre-tokenized data);
    * ``transfer``: ``tokens · token-id bytes / B_host-link`` (F-39: int64 ids, 8 bytes by
      default, over PCIe).

    A stage whose device is unknown (``None``) takes zero time. Arrays broadcast.
    """
    seconds = data_stage_seconds(
        tokens_per_step,
        storage=None if storage is None else in_unit(storage, "byte/s"),
        stored_bytes_per_token=in_unit(stored_bytes_per_token, "byte"),
        readers_sharing_storage=readers_sharing_storage,
        access_factor=access_factor,
        tokenization_rate=None
        if tokenization_rate is None
        else in_unit(tokenization_rate, "token/s"),
        workers=workers,
        host_link=None if host_link is None else in_unit(host_link, "byte/s"),
        token_id_bytes=8.0 if token_id_bytes is None else in_unit(token_id_bytes, "byte"),
    )
    return {stage: Q_(value, "s") for stage, value in seconds.items()}


def data_stage_seconds(
    tokens_per_step: Real,
    *,
    storage: Real | None,
    stored_bytes_per_token: Real,
    readers_sharing_storage: Real = 1,
    access_factor: float = 1.0,
    tokenization_rate: Real | None = None,
    workers: Real = 1,
    host_link: Real | None = None,
    token_id_bytes: Real = 8.0,
) -> dict[str, np.ndarray]:
    """:func:`data_stage_times` on magnitudes (bytes/s, bytes per token, tokens/s, bytes; each
    stage's seconds as a float64 array), for the plan's chain, which converts its specs once."""
    tokens = np.asarray(tokens_per_step, dtype=np.float64)
    readers = np.asarray(readers_sharing_storage, dtype=np.float64)
    workers = np.asarray(workers)
    zero = np.zeros_like(tokens)
    read = zero
    if storage is not None:
        per_reader = storage * access_factor / readers
        read = tokens * stored_bytes_per_token / per_reader
    preprocess = zero
    if tokenization_rate is not None:
        preprocess = tokens / (tokenization_rate * workers)
    transfer = zero
    if host_link is not None:
        transfer = tokens * token_id_bytes / host_link
    return {"read": read, "preprocess": preprocess, "transfer": transfer}


def pipelined_time(*stages: pint.Quantity) -> pint.Quantity:
    """``t_iteration = max(t_fetch, t_process, t_transfer)`` (the chapter's F-36): with
    prefetching the stages overlap, so the slowest sets the pace (their sum is the
    unoverlapped time). Arrays broadcast."""
    return Q_(pipelined_seconds(*(in_unit(s, "s") for s in stages)), "s")


def pipelined_seconds(*stages: Real) -> Any:
    """:func:`pipelined_time` on seconds: the slowest stage (arrays broadcast; NaN
    propagates)."""
    return np.maximum.reduce([np.asarray(s, dtype=np.float64) for s in stages])


def workers_needed(preprocess_time_one_worker: pint.Quantity, compute_time: pint.Quantity) -> Real:
    """``ceil(t_preprocessing / t_GPU)`` workers keep the GPU fed (the chapter's F-38 pipeline
    condition ``t_preprocessing < t_GPU_compute``)."""
    ratio = (preprocess_time_one_worker / compute_time).to("dimensionless").magnitude
    return np.ceil(ratio)


def feed_utilization(pipeline_rate: pint.Quantity, gpu_rate: pint.Quantity) -> Real:
    """``min(R_pipeline / R_GPU, 1)``: the GPU's busy share when the input is the bottleneck
    (the chapter's F-34: 200 of 1000 images/s gives 20%)."""
    return np.minimum((pipeline_rate / gpu_rate).to("dimensionless").magnitude, 1.0)


def prefetch_buffer_bytes(
    batch_bytes: pint.Quantity,
    *,
    workers: Real,
    prefetch_factor: Real = 2,
    processes: Real = 1,
) -> pint.Quantity:
    """Host memory the loaders hold: ``processes · workers · prefetch_factor · batch bytes``
    (PyTorch ``DataLoader``: each worker keeps ``prefetch_factor`` batches, default 2)."""
    return (batch_bytes * np.asarray(workers) * prefetch_factor * np.asarray(processes)).to("MB")
