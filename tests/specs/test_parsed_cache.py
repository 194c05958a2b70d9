"""The built-in catalog's validated specs kept between processes (mlcost.specs.parsed): read back
equal to a fresh parse, never stale, never trusted when damaged."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from mlcost.errors import SpecError
from mlcost.specs import Catalog, parsed
from mlcost.specs import catalog as catalog_module
from mlcost.specs.catalog import default_catalog_dir
from mlcost.units import ureg
from tests.specs.test_derived_values import llama2_7b_parameters


def kept_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("mlcost-catalog-*.pickle"))


def refuse_to_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any YAML parse from here on fails the test: what is read must come from the kept files."""

    def parse(path: object) -> None:
        raise AssertionError(f"parsed {path} instead of reading the kept specs")

    monkeypatch.setattr(catalog_module, "load_spec", parse)


def test_kept_groups_read_back_equal_to_a_fresh_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = Catalog.from_directory(default_catalog_dir())  # every file parsed, nothing kept
    first = Catalog.from_directory(default_catalog_dir(), lazy=True, keep_parsed=tmp_path)
    assert first.items() == fresh.items()
    groups = {p.parent.name for p in default_catalog_dir().rglob("*.yaml")}
    assert len(kept_files(tmp_path)) == len(groups)  # one file per group
    refuse_to_parse(monkeypatch)
    again = Catalog.from_directory(default_catalog_dir(), lazy=True, keep_parsed=tmp_path)
    assert again.items() == fresh.items()
    gpu = again.accelerator("h100-sxm5-80gb")
    # The datasheet's 80 GiB (specs/accelerators/h100-sxm5-80gb.yaml), on mlcost's registry:
    # bytes convert to bytes only.
    assert isinstance(gpu.memory_capacity, ureg.Quantity)
    assert gpu.memory_capacity.to("byte").magnitude == 80 * 2**30
    assert again.model("llama-2-7b").parameter_count == llama2_7b_parameters(32)


def copy_of_the_catalog(tmp_path: Path) -> Path:
    root = tmp_path / "catalog"
    shutil.copytree(default_catalog_dir(), root)
    return root


def test_an_edited_file_is_parsed_again(tmp_path: Path) -> None:
    root, kept = copy_of_the_catalog(tmp_path), tmp_path / "kept"
    kept.mkdir()
    before = Catalog.from_directory(root, lazy=True, keep_parsed=kept).model("llama-2-7b")
    assert before.parameter_count == llama2_7b_parameters(32)
    models_kept = [p for p in kept_files(kept) if "-models-" in p.name]
    assert len(models_kept) == 1
    path = root / "models" / "llama-2-7b.yaml"
    path.write_text(path.read_text().replace("num_layers: 32", "num_layers: 2"))
    after = Catalog.from_directory(root, lazy=True, keep_parsed=kept).model("llama-2-7b")
    assert after.parameter_count == llama2_7b_parameters(2)
    now = [p for p in kept_files(kept) if "-models-" in p.name]
    assert len(now) == 1 and now != models_kept  # the earlier digest's file replaced


def test_a_damaged_kept_file_is_parsed_again(tmp_path: Path) -> None:
    first = Catalog.from_directory(default_catalog_dir(), lazy=True, keep_parsed=tmp_path)
    first.model("llama-2-7b")
    (models,) = [p for p in kept_files(tmp_path) if "-models-" in p.name]
    models.write_bytes(models.read_bytes()[:100])  # truncated
    again = Catalog.from_directory(default_catalog_dir(), lazy=True, keep_parsed=tmp_path)
    assert again.model("llama-2-7b").parameter_count == llama2_7b_parameters(32)
    assert len(models.read_bytes()) > 100  # written again, whole


def test_a_group_with_a_problem_is_not_kept(tmp_path: Path) -> None:
    root, kept = copy_of_the_catalog(tmp_path), tmp_path / "kept"
    kept.mkdir()
    path = root / "models" / "llama-2-7b.yaml"
    path.write_text(path.read_text().replace("num_layers: 32", "num_layers: -1"))
    for _ in range(2):  # the same error each time: nothing kept that would hide it
        with pytest.raises(SpecError, match="num_layers"):
            Catalog.from_directory(root, lazy=True, keep_parsed=kept).model("llama-2-7b")
    assert not [p for p in kept_files(kept) if "-models-" in p.name]


def test_a_cache_folder_keeps_the_specs_of_the_most_recent_catalog_folders(
    tmp_path: Path,
) -> None:
    # 20 other catalog folders' kept groups (two files each), written one minute apart, and one
    # file that is not a kept group. Writing this catalog's groups keeps its own, the
    # KEPT_FOLDERS - 1 other folders written last (folders 5-19), and the other file.
    kept = tmp_path / "kept"
    kept.mkdir()
    for n in range(20):
        for group in ("models", "accelerators"):
            old = kept / f"mlcost-catalog-{n:012x}-{group}-{n:024x}.pickle"
            old.write_bytes(b"")
            os.utime(old, (1_000_000 + 60 * n, 1_000_000 + 60 * n))
    other = kept / "98c9a34021abb1b0909547599f5448f0631e4c26.pickle"  # pint's own
    other.write_bytes(b"")
    catalog = Catalog.from_directory(default_catalog_dir(), lazy=True, keep_parsed=kept)
    assert len(catalog) > 0  # every group read, so every group written
    assert parsed.KEPT_FOLDERS == 16
    folders = {p.name.split("-")[2] for p in kept_files(kept)}
    ours = [p for p in kept_files(kept) if p.stat().st_mtime > 2_000_000]
    groups = {p.parent.name for p in default_catalog_dir().rglob("*.yaml")}
    assert len(ours) == len(groups)  # all of this catalog's groups kept, one folder's
    assert len({p.name.split("-")[2] for p in ours}) == 1
    assert folders - {ours[0].name.split("-")[2]} == {f"{n:012x}" for n in range(5, 20)}
    assert other.exists()
