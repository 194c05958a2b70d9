"""The built-in catalog: completeness, provenance, lookup, and datasheet spot checks.

Spot-check values are typed here from the cited documents, not read from the catalog files.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from mlcost.errors import (
    AmbiguousNameError,
    DefaultNameNote,
    MlcostError,
    SpecError,
    UnknownNameError,
)
from mlcost.specs import (
    Accelerator,
    Catalog,
    Link,
    Node,
    default_catalog_dir,
    load_spec,
)
from mlcost.specs.catalog import GROUPS

REQUIRED = {
    "accelerators": [
        "v100-sxm2-16gb",
        "v100-sxm2-32gb",
        "a100-sxm4-40gb",
        "a100-sxm4-80gb",
        "a100-pcie-40gb",
        "a100-pcie-80gb",
        "h100-sxm5-80gb",
        "h100-pcie-80gb",
        "h200-sxm-141gb",
    ],
    "models": [
        "gpt2",
        "gpt2-medium",
        "gpt2-large",
        "gpt2-xl",
        "gpt3-175b",
        "bert-base",
        "bert-large",
        "llama-2-7b",
        "llama-2-13b",
        "llama-2-70b",
        "llama-3-8b",
        "llama-3-70b",
        "llama-3.1-405b",
        "mistral-7b",
        "qwen2-7b",
        "gemma-2-9b",
        "resnet-50",
    ],
    "links": [
        "nvlink-2",
        "nvlink-3",
        "nvlink-4",
        "nvlink-5",
        "pcie-3-x16",
        "pcie-4-x16",
        "pcie-5-x16",
        "infiniband-hdr",
        "infiniband-ndr",
        "ethernet-100g",
        "ethernet-200g",
        "ethernet-400g",
    ],
    "systems": ["dgx-1-v100", "dgx-a100", "dgx-h100"],
    "formats": ["fp64", "fp32", "tf32", "fp16", "bf16", "fp8-e4m3", "fp8-e5m2", "int8", "int4"],
    "grids": ["world", "us"],
}


@pytest.mark.parametrize("group", sorted(REQUIRED))
def test_required_items_exist(catalog: Catalog, group: str) -> None:
    missing = set(REQUIRED[group]) - set(catalog.names(group))
    assert not missing


def test_catalog_has_every_kind(catalog: Catalog) -> None:
    for group in ("storage", "hosts", "prices"):
        assert catalog.names(group), group
    media = {s.medium for s in catalog.items("storage")}  # type: ignore[attr-defined]
    assert {"nvme", "sata-ssd", "hdd", "network-fs"} <= media


def test_every_number_has_a_source(catalog: Catalog) -> None:
    for spec in catalog.items():
        assert spec.unsourced_paths() == [], spec.name
        for key, value in spec.sources.items():
            # A source is a reference key or a citation long enough to find the document.
            assert value in spec.references or len(value) > 20, (spec.name, key)


def test_one_file_per_item_named_after_it() -> None:
    root = default_catalog_dir()
    for file in root.rglob("*.yaml"):
        assert load_spec(file).name == file.stem, file


def test_names_are_canonical(catalog: Catalog) -> None:
    for spec in catalog.items():
        assert spec.name == spec.name.lower()
        assert " " not in spec.name and "_" not in spec.name


# ----- ridge points (issue acceptance) ---------------------------------------------------
def test_a100_ridge_point(catalog: Catalog) -> None:
    gpu = catalog.accelerator("a100-sxm4-80gb")
    # 312e12 FLOP/s / 2.039e12 B/s = 153.0 FLOP/byte (A100 datasheet, BF16 dense, 80GB SXM).
    assert gpu.ridge_point("bf16").to("flop/byte").magnitude == pytest.approx(312 / 2.039, rel=1e-9)
    assert round(gpu.ridge_point("bf16").magnitude) == 153


def test_h100_ridge_point(catalog: Catalog) -> None:
    gpu = catalog.accelerator("h100-sxm5-80gb")
    # 989.4e12 / 3.35e12 = 295.3 FLOP/byte (H100 whitepaper BF16 dense; datasheet 3.35 TB/s).
    assert gpu.ridge_point("bf16").magnitude == pytest.approx(989.4 / 3.35, rel=1e-9)
    assert round(gpu.ridge_point("bf16").magnitude) == 295


# ----- datasheet spot checks -------------------------------------------------------------
def test_a100_datasheet(catalog: Catalog) -> None:
    # NVIDIA A100 Tensor Core GPU datasheet (2021), specifications table:
    # FP64 9.7 TF, FP64 Tensor 19.5 TF, FP32 19.5 TF, TF32 156 TF (312 sparse),
    # BF16/FP16 312 TF (624 sparse), INT8 624 TOPS (1248 sparse); 80GB SXM 2,039 GB/s, 400 W.
    gpu = catalog.accelerator("a100-sxm4-80gb")
    assert gpu.peak("fp64", engine="vector").magnitude == pytest.approx(9.7)
    assert gpu.peak("fp64").magnitude == pytest.approx(19.5)
    assert gpu.peak("fp32").magnitude == pytest.approx(19.5)
    assert gpu.peak("tf32").magnitude == pytest.approx(156)
    assert gpu.peak("tf32", sparse=True).magnitude == pytest.approx(312)
    assert gpu.peak("fp16").magnitude == pytest.approx(312)
    assert gpu.peak("bf16", sparse=True).magnitude == pytest.approx(624)
    assert gpu.peak("int8").magnitude == pytest.approx(624)
    assert gpu.memory_bandwidth.to("GB/s").magnitude == pytest.approx(2039)
    assert gpu.tdp.to("W").magnitude == pytest.approx(400)
    assert gpu.memory_capacity.to("GiB").magnitude == pytest.approx(80)


def test_h100_sxm_datasheet(catalog: Catalog) -> None:
    # NVIDIA H100 datasheet, H100 SXM column: FP64 34 TF, FP64 Tensor 67 TF, FP32 67 TF,
    # BF16 1,979 TF and FP8 3,958 TF with sparsity (dense = half), 3.35 TB/s, up to 700 W.
    gpu = catalog.accelerator("h100-sxm5-80gb")
    assert gpu.peak("fp64", engine="vector").magnitude == pytest.approx(34, rel=0.02)
    assert gpu.peak("fp64").magnitude == pytest.approx(67, rel=0.02)
    assert gpu.peak("bf16", sparse=True).magnitude == pytest.approx(1979, rel=0.001)
    assert gpu.peak("fp8").magnitude == pytest.approx(1979, rel=0.001)
    assert gpu.peak("fp8", sparse=True).magnitude == pytest.approx(3958, rel=0.001)
    assert gpu.memory_bandwidth.to("TB/s").magnitude == pytest.approx(3.35)
    assert gpu.tdp.to("W").magnitude == pytest.approx(700)


def test_v100_datasheet(catalog: Catalog) -> None:
    # NVIDIA Tesla V100 datasheet: SXM2 tensor 125 TF, FP32 15.7 TF, FP64 7.8 TF, 900 GB/s,
    # 300 W; PCIe tensor 112 TF, 250 W. No BF16 or TF32 on Volta.
    sxm = catalog.accelerator("v100-sxm2-32gb")
    assert sxm.peak("fp16").magnitude == pytest.approx(125)
    assert sxm.peak("fp32").magnitude == pytest.approx(15.7)
    assert sxm.peak("fp64").magnitude == pytest.approx(7.8)
    assert sxm.memory_bandwidth.to("GB/s").magnitude == pytest.approx(900)
    assert sxm.tdp.to("W").magnitude == pytest.approx(300)
    with pytest.raises(Exception, match="bf16"):
        sxm.peak("bf16")


def test_h200_datasheet(catalog: Catalog) -> None:
    # NVIDIA H200 datasheet: 141 GB HBM3e at 4.8 TB/s; same compute as H100 SXM.
    gpu = catalog.accelerator("h200-sxm-141gb")
    assert gpu.memory_bandwidth.to("TB/s").magnitude == pytest.approx(4.8)
    assert gpu.peak("bf16", sparse=True).magnitude == pytest.approx(1979, rel=0.001)


# Typed from each card's datasheet or architecture whitepaper (the document named per row):
# memory bandwidth GB/s, board power W, dense BF16 tensor TFLOP/s with FP32 accumulate (None: no
# BF16), and whether it has FP8 tensor cores.
CARDS = {
    # Ada whitepaper v2.1 Appendix A: GeForce RTX 4090 1008 GB/s, 450 W, BF16 165.2, FP8 yes.
    "rtx-4090": (1008, 450, 165.2, True),
    # RTX Blackwell whitepaper, Appendix A: GeForce RTX 5090 1792 GB/s, 575 W TGP, BF16 with
    # FP32 accumulate 209.5 (half of 170 SMs x 2.407 GHz x 1,024 FLOP/clock = 209.50), FP8 yes.
    "rtx-5090": (1792, 575, 209.5, True),
    # Ampere GA102 whitepaper: GeForce RTX 3090 936 GB/s, 350 W, BF16 71 (FP32 acc.), no FP8.
    "rtx-3090": (936, 350, 71, False),
    # RTX A6000 datasheet 768 GB/s, 300 W; GA102 whitepaper BF16 154.8.
    "rtx-a6000": (768, 300, 154.8, False),
    # RTX 6000 Ada datasheet 960 GB/s, 300 W; Ada whitepaper BF16 364.2, FP8 yes.
    "rtx-6000-ada": (960, 300, 364.2, True),
    # L40S datasheet: 864 GB/s, 350 W, BF16 362.05, FP8 733.
    "l40s": (864, 350, 362.05, True),
    # L4 datasheet: 300 GB/s, 72 W, BF16 242 with sparsity (121 dense), FP8 485 with sparsity.
    "l4": (300, 72, 121, True),
    # A10 datasheet: 600 GB/s, 150 W, BF16 125.
    "a10": (600, 150, 125, False),
    # T4 datasheet: 320+ GB/s, 70 W, FP16/FP32 mixed 65 TFLOPS; Turing has no BF16 or FP8.
    "t4": (320, 70, None, False),
    # AMD MI325X datasheet: 6 TB/s, 1,000 W TBP, BF16 1,307.4, FP8 2,614.9.
    "mi325x-256gb": (6000, 1000, 1307.4, True),
    # Intel Gaudi 3 (Hot Chips 2024): 3.67 TB/s, 900 W (air), BF16 and FP8 matrix 1,835.
    "gaudi-3": (3670, 900, 1835, True),
}

# Google Cloud TPU documentation, per chip: HBM bandwidth GB/s and BF16 peak TFLOP/s (no power
# is published).
TPUS = {"tpu-v5e": (819, 197), "tpu-v5p": (2765, 459), "tpu-v6e": (1638, 918)}


@pytest.mark.parametrize("name", sorted(TPUS))
def test_tpus(catalog: Catalog, name: str) -> None:
    bandwidth, bf16 = TPUS[name]
    tpu = catalog.accelerator(name)
    assert tpu.memory_bandwidth.to("GB/s").magnitude == pytest.approx(bandwidth)
    assert tpu.peak("bf16").magnitude == pytest.approx(bf16)
    assert tpu.tdp is None and "fp8" not in tpu.formats


@pytest.mark.parametrize("name", sorted(CARDS))
def test_cards_people_own_or_rent(catalog: Catalog, name: str) -> None:
    bandwidth, power, bf16, fp8 = CARDS[name]
    gpu = catalog.accelerator(name)
    assert gpu.memory_bandwidth.to("GB/s").magnitude == pytest.approx(bandwidth)
    assert gpu.tdp is not None and gpu.tdp.to("W").magnitude == pytest.approx(power)
    assert ("bf16" in gpu.formats) == (bf16 is not None)
    if bf16 is not None:
        assert gpu.peak("bf16").magnitude == pytest.approx(bf16)
    assert ("fp8" in gpu.formats) == fp8
    assert gpu.memory_available <= gpu.memory_capacity  # what nvidia-smi shows, never more


def test_sparse_never_below_dense_and_capacity_sane(catalog: Catalog) -> None:
    for spec in catalog.items("accelerators"):
        assert isinstance(spec, Accelerator)
        for entry in spec.peak_compute:
            if entry.sparse is not None:
                assert entry.sparse.to("flop/s").magnitude == pytest.approx(
                    2 * entry.dense.to("flop/s").magnitude, rel=0.01
                ), (spec.name, entry.format)
        if spec.memory_visible is not None:
            assert spec.memory_visible <= spec.memory_capacity * 1.001, spec.name


# ----- links ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "per_direction_gb_s"),
    [
        # NVLink: per-GPU totals quoted for both directions, halved (NVIDIA V100/A100/H100
        # datasheets: 300, 600, 900 GB/s).
        ("nvlink-2", 150),
        ("nvlink-3", 300),
        ("nvlink-4", 450),
        # IB and Ethernet port rates are per direction: 200 Gbit/s = 25 GB/s, 400 = 50.
        ("infiniband-hdr", 25),
        ("infiniband-ndr", 50),
        ("ethernet-100g", 12.5),
        ("ethernet-400g", 50),
    ],
)
def test_link_per_direction(catalog: Catalog, name: str, per_direction_gb_s: float) -> None:
    link = catalog.link(name)
    assert isinstance(link, Link)
    # 2% covers links whose file states the post-encoding data rate (64b/66b, 128b/130b).
    assert link.per_direction.to("GB/s").magnitude == pytest.approx(per_direction_gb_s, rel=0.02)
    assert link.both_directions == link.per_direction * 2


def test_pcie_generations_double(catalog: Catalog) -> None:
    # PCIe 3.0/4.0/5.0: 8/16/32 GT/s per lane, 128b/130b: x16 ~ 15.75/31.5/63 GB/s per direction.
    gen3, gen4, gen5 = (
        catalog.link(f"pcie-{g}-x16").per_direction.to("GB/s").magnitude for g in (3, 4, 5)
    )
    assert gen3 == pytest.approx(16 * 8 * 128 / 130 / 8, rel=0.02)
    assert gen4 == pytest.approx(2 * gen3, rel=0.01)
    assert gen5 == pytest.approx(2 * gen4, rel=0.01)


# ----- systems ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "gpu_prefix", "link"),
    [
        ("dgx-1-v100", "v100-sxm2", "nvlink-2"),
        ("dgx-a100", "a100-sxm4", "nvlink-3"),
        ("dgx-h100", "h100-sxm5", "nvlink-4"),
    ],
)
def test_dgx_presets(catalog: Catalog, name: str, gpu_prefix: str, link: str) -> None:
    node = catalog.node(name)
    assert isinstance(node, Node)
    assert node.accelerators_per_node == 8  # all three DGX generations hold 8 GPUs
    assert catalog.accelerator(node.accelerator).name.startswith(gpu_prefix)
    assert node.intra_node_link == link
    assert catalog.dangling_references() == []


# ----- lookup -------------------------------------------------------------------------------
def test_lookup_is_case_insensitive_and_knows_aliases(catalog: Catalog) -> None:
    assert catalog.accelerator("H100-SXM5-80GB").name == "h100-sxm5-80gb"
    assert catalog.model("Llama2-7B").name == "llama-2-7b"


# What people type, and the entry it means: the data-centre module (SXM) with the most memory of
# the family, and the card itself where the alias names the form factor.
SHORT_NAMES = {
    "h100": "h100-sxm5-80gb",
    "h100-80gb": "h100-sxm5-80gb",
    "a100": "a100-sxm4-80gb",
    "a100-40gb": "a100-sxm4-40gb",
    "a100-pcie": "a100-pcie-80gb",
    "v100": "v100-sxm2-32gb",
    "v100-pcie": "v100-pcie-32gb",
    "4090": "rtx-4090",
    "rtx-4090": "rtx-4090",
    "l40s": "l40s",
}


@pytest.mark.parametrize("name", sorted(SHORT_NAMES))
def test_short_names_resolve_to_their_default(catalog: Catalog, name: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert catalog.accelerator(name).name == SHORT_NAMES[name]
    shared = len(catalog._aliases.get(name, ())) > 1
    notes = [str(w.message) for w in caught if issubclass(w.category, DefaultNameNote)]
    # A shared short name says which entry it chose and how to name the others; a name that
    # means one entry says nothing.
    assert notes == ([notes[0]] if shared else [])
    if shared:
        assert notes[0].startswith(f"{name} → {SHORT_NAMES[name]} (")


def test_note_names_the_other_entries(catalog: Catalog) -> None:
    with pytest.warns(DefaultNameNote) as caught:
        catalog.accelerator("h100")
    assert str(caught[0].message) == (
        "h100 → h100-sxm5-80gb (NVIDIA H100 SXM5 80GB); say h100-pcie-80gb for the other"
    )


def test_every_shared_alias_has_one_default(catalog: Catalog) -> None:
    catalog.items("accelerators")
    shared = {alias for alias, keys in catalog._aliases.items() if len(keys) > 1}
    assert shared, "the catalog shares aliases (h100, a100, ...)"
    assert shared <= set(catalog._defaults)


def _card(name: str, **fields: object) -> Accelerator:
    """A made-up card with the alias ``card``."""
    return Accelerator(
        name=name,
        aliases=("card",),
        vendor="x",
        memory_capacity="8 GiB",
        memory_bandwidth="100 GB/s",
        peak_compute=[{"format": "fp32", "engine": "vector", "dense": "1 TFLOP/s"}],
        **fields,
    )


def test_ambiguous_alias_lists_candidates() -> None:
    # Two entries sharing an alias that neither claims as its default: the one-line error.
    one, two = _card("card-a"), _card("card-b")
    with pytest.raises(AmbiguousNameError) as error:
        Catalog([one, two]).accelerator("card")
    assert error.value.candidates == ["card-a", "card-b"]
    assert str(error.value) == "accelerator 'card' is ambiguous; it may mean: card-a, card-b"


def test_a_short_name_has_one_default() -> None:
    one, two = _card("card-a", default_for=("card",)), _card("card-b", default_for=("card",))
    with pytest.raises(SpecError, match="default_for: 'card' is claimed by card-a and card-b"):
        Catalog([one, two])
    # A catalog file may name only its own aliases; a copy whose aliases were cleared (a
    # calibrated profile of h100-sxm5-80gb) claims nothing.
    assert _card("card-c", default_for=("crad",)).defaults == ()
    assert _card("card-d", default_for=("card",)).model_copy(update={"aliases": ()}).defaults == ()


def test_docs_list_what_the_catalog_holds(catalog: Catalog) -> None:
    text = (Path(__file__).parents[2] / "docs" / "catalog.md").read_text()
    listed = set(re.findall(r"`([a-z0-9.\-]+)`", text))
    for group in ("accelerators", "models"):
        assert set(catalog.names(group)) <= listed, group


def test_unknown_name_suggests(catalog: Catalog) -> None:
    with pytest.raises(UnknownNameError) as error:
        catalog.accelerator("h100-sxm-80gb")
    assert "h100-sxm5-80gb" in error.value.suggestions


def test_kind_filter(catalog: Catalog) -> None:
    with pytest.raises(MlcostError, match="'llama-2-7b' is a transformer"):
        catalog.accelerator("llama-2-7b")
    with pytest.raises(UnknownNameError):
        catalog.accelerator("llama-9-7b")


def test_a_catalog_file_claims_only_its_aliases(tmp_path: Path) -> None:
    (tmp_path / "accelerators").mkdir()
    (tmp_path / "accelerators" / "card.yaml").write_text(
        "kind: accelerator\nname: card\naliases: [c1]\ndefault_for: [c2]\nvendor: x\n"
        "memory_capacity: 8 GiB\nmemory_bandwidth: 1 TB/s\n"
        "peak_compute: [{format: bf16, dense: 1 TFLOP/s}]\nsources: {'*': made up}\n"
    )
    with pytest.raises(SpecError, match="default_for: 'c2' is not among aliases"):
        Catalog.from_directory(tmp_path)


def test_user_files_extend_the_catalog(catalog: Catalog, tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "mine.yaml"
    path.write_text(
        "kind: accelerator\nname: my-gpu\nvendor: Acme\nmemory_capacity: 24 GiB\n"
        "memory_bandwidth: 1 TB/s\ntdp: 300 W\npeak_compute: [{format: bf16, dense: 100 TFLOP/s}]\n"
    )
    extended = catalog.with_files(path)
    assert extended.accelerator("my-gpu").vendor == "Acme"
    assert "my-gpu" not in catalog  # the original is unchanged


def test_duplicate_names_rejected(catalog: Catalog) -> None:
    spec = catalog.model("gpt2")
    with pytest.raises(SpecError, match="defined twice"):
        Catalog([spec, spec])


def test_prices_are_dated_and_linked(catalog: Catalog) -> None:
    prices = catalog.prices_for("h100-sxm5-80gb")
    assert prices
    assert [p.date for p in prices] == sorted((p.date for p in prices), reverse=True)
    for price in catalog.items("prices"):
        assert price.price_per_gpu_hour.to("USD/hour").magnitude > 0  # type: ignore[attr-defined]
        catalog.accelerator(price.accelerator)  # type: ignore[attr-defined]


def test_grids_have_years_and_plausible_intensity(catalog: Catalog) -> None:
    for grid in catalog.items("grids"):
        intensity = grid.carbon_intensity.to("gCO2e/kWh").magnitude  # type: ignore[attr-defined]
        # Every national grid lies between hydro/nuclear-heavy (~20) and coal-heavy (~1000).
        assert 10 < intensity < 1100, grid.name
        assert 2015 <= grid.year <= 2026  # type: ignore[attr-defined]


# ----- reading the catalog group by group ------------------------------------------------------
def _lookups(catalog: Catalog) -> list[object]:
    """What a user asks a catalog, each answer or the error it raises (type and message)."""
    questions = [
        lambda: catalog.model("Llama2-7B").name,
        lambda: catalog.accelerator("a100"),
        lambda: catalog.accelerator("llama-2-7b"),
        lambda: catalog.accelerator("h100-sxm-80gb"),
        lambda: catalog.get("dgx-h100").name,
        lambda: catalog.element_bytes("fp8"),
        lambda: (catalog.standard_node("h100-sxm5-80gb") or catalog).name,
        lambda: [p.name for p in catalog.prices_for("h100-sxm5-80gb")],
        lambda: catalog.names("grids"),
        lambda: catalog.origin("gpt2"),
        lambda: ("mistral-7b" in catalog, len(catalog), catalog.dangling_references()),
    ]
    answers: list[object] = []
    for question in questions:
        try:
            answers.append(question())
        except MlcostError as error:
            answers.append((type(error).__name__, str(error)))
    return answers


def test_a_lazy_catalog_answers_as_one_read_at_once() -> None:
    """The built-in catalog read group by group gives every answer (and every error) the
    catalog read all at once gives (the oracle), reading only the groups a lookup needs."""
    root = default_catalog_dir()
    lazy = Catalog.from_directory(root, lazy=True)
    assert lazy.model("llama-2-7b").name == "llama-2-7b"
    assert set(lazy._pending) == set(GROUPS) - {"models"}  # one group read, the rest waiting
    assert _lookups(Catalog.from_directory(root, lazy=True)) == _lookups(
        Catalog.from_directory(root)
    )


def _group_catalog(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


GPU = (
    "kind: accelerator\nname: {name}\nvendor: Acme\nmemory_capacity: 24 GiB\n"
    "memory_bandwidth: 1 TB/s\ntdp: 300 W\npeak_compute: [{{format: bf16, dense: 100 TFLOP/s}}]\n"
)


def test_a_lazy_catalog_raises_a_groups_problems_whenever_it_is_needed(tmp_path: Path) -> None:
    """A broken file, a spec filed under another kind's folder or a name defined twice is the
    one-line SpecError reading all at once gives, raised each time its group is needed; the
    other groups still answer."""
    root = _group_catalog(
        tmp_path,
        {
            "accelerators/good-gpu.yaml": GPU.format(name="good-gpu"),
            "models/not-a-model.yaml": GPU.format(name="not-a-model"),
            "grids/broken.yaml": "kind: grid\nname: [unclosed\n",
        },
    )
    lazy = Catalog.from_directory(root, lazy=True, require_sources=False)
    assert lazy.accelerator("good-gpu").vendor == "Acme"
    for _ in range(2):
        with pytest.raises(SpecError, match="an accelerator filed under models/"):
            lazy.model("gpt2")
        with pytest.raises(SpecError, match="not valid YAML"):
            lazy.items("grids")
    with pytest.raises(SpecError, match="not valid YAML"):  # read all at once: the same error
        Catalog.from_directory(root, require_sources=False)
    twice = _group_catalog(
        tmp_path / "twice",
        {"accelerators/x.yaml": GPU.format(name="x"), "accelerators/y.yaml": GPU.format(name="x")},
    )
    with pytest.raises(SpecError, match="'x' is defined twice"):
        Catalog.from_directory(twice, lazy=True, require_sources=False).names()


def test_a_name_no_path_can_be_is_an_unknown_name(catalog: Catalog) -> None:
    # Catalog.resolve asks os.path.isfile whether a text is a spec file; a NUL byte (no path can
    # hold one) must be an unknown name, not a ValueError from the file system.
    with pytest.raises(UnknownNameError):
        catalog.resolve("dgx\x00h100", ("node",))


# Rental prices typed from their pages (instance price / GPUs): CoreWeave's 8-GPU instances of
# February 2026 (L40S 18.00, A100 80GB 21.60, B200 68.80 USD/hour), Vultr's MI300X 1.85.
DEFAULT_PRICES = {
    "l40s": 18.00 / 8,
    "a100-sxm4-80gb": 21.60 / 8,
    "b200-sxm-180gb": 68.80 / 8,
    "mi300x-192gb": 1.85,
}


@pytest.mark.parametrize("gpu", sorted(DEFAULT_PRICES))
def test_the_gpus_people_rent_have_a_default_price(catalog: Catalog, gpu: str) -> None:
    from mlcost.site import resolve_price

    usd, source = resolve_price(None, catalog=catalog, gpu_names=(gpu,))
    assert usd == pytest.approx(DEFAULT_PRICES[gpu], rel=1e-12)
    assert "default: the newest on-demand offer" in source and "dated 20" in source
    for price in catalog.prices_for(gpu):
        assert price.references and price.sources  # every price cites its page


def test_the_comparison_prices_every_gpu_it_compares(catalog: Catalog) -> None:
    # The UI's comparison (and so its Pareto plot) draws only priced rows: every GPU it compares
    # but the GeForce card has a catalog price now.
    from mlcost.ui.state import COMPARED_GPUS

    unpriced = {gpu for gpu in COMPARED_GPUS if not catalog.prices_for(gpu)}
    assert unpriced == {"rtx-4090"}
