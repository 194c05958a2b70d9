"""Collective times against hand derivations of the alpha-beta formulas, and bus bandwidth as
nccl-tests defines it (doc/PERFORMANCE.md)."""

from __future__ import annotations

import datetime

import numpy as np
import pytest

from mlcost.comms import (
    algorithm_bandwidth,
    alltoall_time,
    bus_bandwidth,
    bus_bandwidth_factor,
    collective_time,
    hierarchical_allreduce_time,
    hierarchical_reduce_scatter_time,
    point_to_point_time,
    ring_allgather_time,
    ring_allreduce_time,
    ring_reduce_scatter_time,
    tree_allreduce_time,
)
from mlcost.errors import MlcostError
from mlcost.specs import Accelerator
from mlcost.specs.hardware import CollectiveFit, Measured
from mlcost.systems import ACHIEVABLE_FRACTION, HOP_LATENCY, link_model, system
from mlcost.units import Q_

# Exact arithmetic in float64; 1e-12 relative covers rounding only.
EXACT = 1e-12

S = Q_(1, "GB")  # 1e9 bytes
BETA = Q_(100, "GB/s")  # 1e11 bytes/s
ALPHA = Q_(5, "us")  # 5e-6 s


def seconds(quantity):
    return quantity.to("s").magnitude


def test_ring_allreduce_hand_derivation() -> None:
    # n = 8: 2(n-1)·alpha = 14 x 5e-6 = 7e-5 s; 2(n-1)/n · S/beta = 1.75 x 1e9/1e11 = 0.0175 s
    assert seconds(ring_allreduce_time(S, 8, BETA, ALPHA)) == pytest.approx(0.01757, rel=EXACT)


def test_tree_allreduce_hand_derivation() -> None:
    # n = 8: 2·log2(8) = 6 steps of (5e-6 + 0.01) s = 0.06003 s
    assert seconds(tree_allreduce_time(S, 8, BETA, ALPHA)) == pytest.approx(0.06003, rel=EXACT)
    # n = 5 rounds log2 up to 3 steps: same as 8
    assert seconds(tree_allreduce_time(S, 5, BETA, ALPHA)) == pytest.approx(0.06003, rel=EXACT)


def test_reduce_scatter_all_gather_all_to_all_hand_derivation() -> None:
    # n = 4: (n-1)·alpha = 1.5e-5 s; (n-1)/n · S/beta = 0.75 x 0.01 = 0.0075 s
    expected = 1.5e-5 + 0.0075
    for formula in (ring_reduce_scatter_time, ring_allgather_time, alltoall_time):
        assert seconds(formula(S, 4, BETA, ALPHA)) == pytest.approx(expected, rel=EXACT)


def test_point_to_point() -> None:
    # alpha + S/beta = 5e-6 + 0.01
    assert seconds(point_to_point_time(S, BETA, ALPHA)) == pytest.approx(0.010005, rel=EXACT)


def test_hierarchical_allreduce_hand_derivation() -> None:
    # 4 nodes x 8 GPUs; intra 400 GB/s, 2 us; inter 50 GB/s per GPU, 10 us.
    # intra reduce-scatter: 7 x 2e-6 + 7/8 x 1e9/4e11 = 1.4e-5 + 2.1875e-3; twice (RS + AG)
    # inter all-reduce of S/8 = 1.25e8 B on 4 nodes: 6 x 1e-5 + 1.5 x 1.25e8/5e10 = 6e-5 + 3.75e-3
    expected = 2 * (1.4e-5 + 2.1875e-3) + 6e-5 + 3.75e-3
    result = hierarchical_allreduce_time(
        S, 4, 8, Q_(400, "GB/s"), Q_(50, "GB/s"), Q_(2, "us"), Q_(10, "us")
    )
    assert seconds(result) == pytest.approx(expected, rel=EXACT)
    # reduce-scatter: one intra RS + inter RS of S/8: 3 x 1e-5 + 0.75 x 1.25e8/5e10
    expected_rs = 1.4e-5 + 2.1875e-3 + 3e-5 + 1.875e-3
    result_rs = hierarchical_reduce_scatter_time(
        S, 4, 8, Q_(400, "GB/s"), Q_(50, "GB/s"), Q_(2, "us"), Q_(10, "us")
    )
    assert seconds(result_rs) == pytest.approx(expected_rs, rel=EXACT)


@pytest.mark.parametrize("n", [2, 3, 8, 64, 1024])
def test_bus_bandwidth_factors_are_nccl_tests(n: int) -> None:
    assert bus_bandwidth_factor("all-reduce", n) == pytest.approx(2 * (n - 1) / n, rel=EXACT)
    for name in ("all-gather", "reduce-scatter", "all-to-all"):
        assert bus_bandwidth_factor(name, n) == pytest.approx((n - 1) / n, rel=EXACT)
    assert bus_bandwidth_factor("broadcast", n) == 1


@pytest.mark.parametrize("n", [2, 8, 32])
def test_latency_free_ring_reaches_link_bandwidth_as_busbw(n: int) -> None:
    # nccl-tests' definition: a bandwidth-optimal ring with no latency has busbw = link bandwidth
    for name, formula in (
        ("all-reduce", ring_allreduce_time),
        ("reduce-scatter", ring_reduce_scatter_time),
        ("all-gather", ring_allgather_time),
        ("all-to-all", alltoall_time),
    ):
        t = formula(S, n, BETA)
        busbw = bus_bandwidth(S, t, name, n)
        assert busbw.to("GB/s").magnitude == pytest.approx(100, rel=EXACT)
        algbw = algorithm_bandwidth(S, t)
        assert busbw.magnitude == pytest.approx(
            algbw.magnitude * bus_bandwidth_factor(name, n), rel=EXACT
        )


def test_sizes_can_be_arrays() -> None:
    sizes = Q_(np.array([1e6, 1e9]), "byte")
    t = ring_allreduce_time(sizes, 8, BETA, ALPHA)
    # 7e-5 + 1.75 x 1e6/1e11 and 7e-5 + 0.0175
    assert seconds(t) == pytest.approx([7e-5 + 1.75e-5, 7e-5 + 0.0175], rel=EXACT)


def test_bad_inputs_raise_mlcost_errors() -> None:
    with pytest.raises(MlcostError, match="size"):
        ring_allreduce_time(Q_(1, "s"), 8, BETA)
    with pytest.raises(MlcostError, match="ranks"):
        ring_allreduce_time(S, 0, BETA)
    with pytest.raises(MlcostError, match="collective"):
        bus_bandwidth_factor("gossip", 8)
    with pytest.raises(MlcostError, match="algorithm"):
        collective_time("dgx-h100", "all-reduce", S, algorithm="butterfly")
    with pytest.raises(MlcostError, match=r"ranks: got 1 .*at least 2"):
        collective_time("dgx-h100", "all-reduce", S, ranks=1)


# ----- links and systems ------------------------------------------------------------------------
def test_nvlink_uses_one_direction(catalog) -> None:
    # The trap: NVLink 4's "900 GB/s" is both directions; a collective sees 450 GB/s each way.
    model = link_model(catalog.link("nvlink-4"))
    assert model.peak.to("GB/s").magnitude == pytest.approx(450, rel=EXACT)
    assert model.bandwidth.to("GB/s").magnitude == pytest.approx(
        450 * ACHIEVABLE_FRACTION["nvlink"], rel=EXACT
    )
    # the sourced default: 370 of 450 GB/s (nccl-tests issue #212)
    assert model.bandwidth.to("GB/s").magnitude == pytest.approx(370, rel=EXACT)


def test_catalog_latency_larger_than_default_wins(catalog) -> None:
    # ethernet-100g lists 600 ns (adapter); NCCL's per-hop 14 us is larger and is used
    model = link_model(catalog.link("ethernet-100g"))
    assert model.latency == HOP_LATENCY["ethernet"]
    # an explicit latency wins over both
    assert link_model(catalog.link("ethernet-100g"), latency=Q_(1, "ms")).latency == Q_(1, "ms")


def test_dgx_h100_cluster_system(catalog) -> None:
    topo = system("dgx-h100", nodes=4)
    assert (topo.gpus_per_node, topo.nodes, topo.gpus, topo.nics_per_node) == (8, 4, 32, 8)
    # NDR: 400 Gbit/s = 50 GB/s per direction x 0.94 achievable = 47 GB/s per NIC
    assert topo.inter is not None
    assert topo.inter.bandwidth.to("GB/s").magnitude == pytest.approx(47, rel=EXACT)
    su = system("dgx-h100-superpod-su")
    assert su.nodes == 32


def test_single_node_allreduce_is_the_ring_over_nvlink() -> None:
    # 8 GPUs of one DGX H100, 1 GB: ring = 14 x 3.4 us + 1.75 x 1e9 / 370e9 s
    expected = 14 * 3.4e-6 + 1.75 * 1e9 / 370e9
    result = collective_time("dgx-h100", "all-reduce", S, algorithm="ring")
    assert seconds(result.time) == pytest.approx(expected, rel=EXACT)


def test_multi_node_hierarchical_uses_the_nic_share() -> None:
    # 4 DGX H100: intra RS/AG over 8 GPUs at 370 GB/s, 3.4 us; inter ring all-reduce of S/8 over
    # 4 nodes, each GPU with 8 NICs x 47 GB/s / 8 GPUs = 47 GB/s, 14 us per hop.
    intra = 7 * 3.4e-6 + 7 / 8 * 1e9 / 370e9
    inter = 6 * 14e-6 + 1.5 * 1.25e8 / 47e9
    result = collective_time("dgx-h100", "all-reduce", S, nodes=4, algorithm="hierarchical")
    assert seconds(result.time) == pytest.approx(2 * intra + inter, rel=EXACT)
    # the flat ring over 32 ranks: bottleneck = min(370, 8 members x 47 GB/s) = 370 GB/s,
    # latency = the slower hop's 14 us: 62 x 14 us + 62/32 x 1e9/370e9
    ring = collective_time("dgx-h100", "all-reduce", S, nodes=4, algorithm="ring")
    assert seconds(ring.time) == pytest.approx(62 * 14e-6 + 62 / 32 * 1e9 / 370e9, rel=EXACT)
    auto = collective_time("dgx-h100", "all-reduce", S, nodes=4)
    assert seconds(auto.time) == pytest.approx(min(seconds(ring.time), 2 * intra + inter))


def test_group_of_one_member_per_node_shares_the_nics() -> None:
    # 8 ranks 8 apart on 8 DGX H100 nodes: one GPU per node, each with 1/8 of 8 NICs = 47 GB/s:
    # ring all-reduce 14 x 14 us + 1.75 x 1e9 / 47e9
    result = collective_time(
        "dgx-h100", "all-reduce", S, nodes=8, ranks=8, stride=8, algorithm="ring"
    )
    assert seconds(result.time) == pytest.approx(14 * 14e-6 + 1.75 * 1e9 / 47e9, rel=EXACT)


def test_all_to_all_across_nodes_hand_derivation() -> None:
    # 16 ranks on 2 DGX H100: each GPU sends 7/16 of S over NVLink (370 GB/s) and 8/16 over its
    # NIC share (47 GB/s); the NIC part is slower: 15 x 14 us + 0.5 x 1e9 / 47e9
    result = collective_time("dgx-h100", "all-to-all", S, nodes=2)
    assert seconds(result.time) == pytest.approx(15 * 14e-6 + 0.5 * 1e9 / 47e9, rel=EXACT)


def test_measured_fit_replaces_the_intra_node_model(catalog) -> None:
    base = catalog.accelerator("h100-sxm5-80gb")
    fit = CollectiveFit(
        collective="all_reduce", alpha=Q_(20, "us"), bandwidth=Q_(200, "GB/s"), r_squared=0.99
    )
    measured = Measured(measured_on="test", date=datetime.date(2025, 1, 1), collectives=(fit,))
    profile = Accelerator(**{**base.model_dump(), "measured": measured})
    # the profile on its node: the fitted collective replaces the intra-node link
    topo = system("dgx-h100", accelerator=profile)
    assert topo.fits == (fit,)
    # at the measured world size (8) the ring reproduces the fit: t = alpha + S / B_fit
    result = collective_time(topo, "all-reduce", S, algorithm="ring")
    assert seconds(result.time) == pytest.approx(20e-6 + 1e9 / 200e9, rel=EXACT)
