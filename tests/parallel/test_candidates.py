"""The search's candidates (``candidate_degrees``) against a brute-force enumeration written
here with Python loops over every option, the rules as the module docstring of
``mlcost.parallel.search`` states them: ``t`` divides the heads and stays inside a node, ``c``
divides the sequence, ``d`` and ``d·b`` divide the global batch, ``t·p·c·d`` uses the GPUs (all
of them, or at most them), ``p·v`` at most the layers and interleaving (``v > 1``) needs ``p > 1``
and ``m`` a multiple of ``p``; sequence parallelism needs ``t > 1``, the TP overlap needs
sequence parallelism, and ZeRO needs more than one replica (``d·c > 1``)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from mlcost.parallel.search import RECOMPUTE_CODES, SearchSpace, candidate_degrees

FIELDS = ("tp", "pp", "cp", "dp", "mb", "zero", "recompute", "sp", "v", "tpo", "m")


def brute_force(
    layers: int, heads: int, sequence: int, gpus: int, per_node: int, batch: int,
    space: SearchSpace, use_all_gpus: bool,
) -> set[tuple[int, ...]]:  # fmt: skip
    pipeline = space.pipeline_parallel or [
        p for p in range(1, layers + 1)
        if (layers % p == 0 or p & (p - 1) == 0) and p <= gpus
    ]  # fmt: skip
    micro = space.micro_batch_sizes or [b for b in range(1, batch + 1) if batch % b == 0]
    found = set()
    for t, p, c, d, b, z, r, sp, v, o in itertools.product(
        space.tensor_parallel, pipeline, space.context_parallel, range(1, gpus + 1), micro,
        space.zero_stages, space.recompute, space.sequence_parallel, space.virtual_stages,
        space.tp_overlap,
    ):  # fmt: skip
        used = t * p * c * d
        if t > per_node or heads % t or sequence % c or batch % d or batch % (d * b):
            continue
        if not 1 <= p <= layers or (used != gpus if use_all_gpus else used > gpus):
            continue
        m = batch // (d * b)
        if (sp and t == 1) or (o and not sp) or (z > 0 and d * c == 1) or p * v > layers:
            continue
        if v > 1 and not (p > 1 and m % p == 0):
            continue
        found.add((t, p, c, d, b, z, RECOMPUTE_CODES.index(r), sp, v, o, m))
    return found


@pytest.mark.parametrize(
    ("layers", "heads", "sequence", "gpus", "batch", "space", "use_all_gpus"),
    [
        (12, 12, 1024, 8, 32, SearchSpace(), True),
        (12, 12, 1024, 8, 32, SearchSpace(), False),
        (10, 8, 2048, 16, 24, SearchSpace(context_parallel=(1, 2, 4), virtual_stages=(1, 2, 5)),
         False),
        (6, 6, 4096, 12, 12, SearchSpace(micro_batch_sizes=(1, 3, 5), zero_stages=(0, 3)), True),
        (16, 16, 512, 4, 8, SearchSpace(pipeline_parallel=(1, 2, 3, 16), tensor_parallel=(1, 4)),
         False),
    ],
)  # fmt: skip
def test_candidates_are_every_layout_the_rules_allow(
    layers: int, heads: int, sequence: int, gpus: int, batch: int, space: SearchSpace,
    use_all_gpus: bool,
) -> None:  # fmt: skip
    found = candidate_degrees(
        layers=layers, heads=heads, sequence=sequence, gpus=gpus, gpus_per_node=8,
        global_batch_size=batch, space=space, use_all_gpus=use_all_gpus,
    )  # fmt: skip
    rows = list(zip(*(found[name].tolist() for name in FIELDS), strict=True))
    assert len(rows) == len(set(rows))  # each layout once
    expected = brute_force(layers, heads, sequence, gpus, 8, batch, space, use_all_gpus)
    assert set(rows) == expected
    assert all(found[name].dtype == np.int64 for name in FIELDS if name not in ("sp", "tpo"))
