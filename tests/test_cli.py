"""The command line, run in-process through its real entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import mlcost


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mlcost.cli", *args], capture_output=True, text=True, check=False
    )


def test_version() -> None:
    result = run("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"mlcost {mlcost.__version__}"


def test_list_models() -> None:
    result = run("specs", "list", "models", "--json")
    assert result.returncode == 0
    names = {item["name"] for item in json.loads(result.stdout)}
    assert {"gpt2", "llama-2-7b", "resnet-50", "gemma-2-9b"} <= names


def test_show_json_quantities_are_value_unit_objects() -> None:
    result = run("specs", "show", "llama-2-7b", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["name"] == "llama-2-7b"
    assert data["derived"]["parameters"] == 6_738_415_616
    weights = data["derived"]["weights in bf16"]
    assert set(weights) == {"value", "unit"}
    # 6,738,415,616 params x 2 bytes = 13.476831232 GB (hand arithmetic).
    assert weights["unit"] == "GB"
    assert weights["value"] == pytest.approx(13.476831232, rel=1e-12)
    assert data["sources"]["hidden_size"].startswith("Hugging Face config.json")


def test_unknown_name_is_one_line_with_suggestions() -> None:
    result = run("specs", "show", "lama-2-7b")
    assert result.returncode == 2
    assert "did you mean" in result.stderr and "llama-2-7b" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_bad_user_file_is_one_clear_line(tmp_path: Path) -> None:
    path = tmp_path / "gpu.yaml"
    path.write_text(
        "kind: accelerator\nname: x\nvendor: v\nmemory_capacity: 1 GiB\n"
        "memory_bandwidth: 700 W\ntdp: 1 W\npeak_compute: [{format: bf16, dense: 1 TFLOP/s}]\n"
    )
    result = run("specs", "show", str(path))
    assert result.returncode == 2
    assert "memory_bandwidth" in result.stderr and "Traceback" not in result.stderr


def test_validate_reports_unsourced_numbers(tmp_path: Path) -> None:
    path = tmp_path / "gpu.yaml"
    path.write_text(
        "kind: accelerator\nname: x\nvendor: v\nmemory_capacity: 1 GiB\n"
        "memory_bandwidth: 1 TB/s\ntdp: 1 W\npeak_compute: [{format: bf16, dense: 1 TFLOP/s}]\n"
    )
    result = run("specs", "validate", str(path))
    assert result.returncode == 1
    assert "memory_capacity" in result.stderr


def test_import_hf_writes_yaml(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {
                "model_type": "llama",
                "hidden_size": 4096,
                "intermediate_size": 11008,
                "num_hidden_layers": 32,
                "num_attention_heads": 32,
                "vocab_size": 32000,
                "max_position_embeddings": 4096,
            }
        )
    )
    output = tmp_path / "out.yaml"
    result = run("specs", "import-hf", str(config), "--name", "my-llama", "-o", str(output))
    assert result.returncode == 0, result.stderr
    assert "6,738,415,616 parameters" in result.stdout  # Llama-2-7B's count (test_models.py)
    shown = run("specs", "show", str(output), "--json")
    assert json.loads(shown.stdout)["name"] == "my-llama"
    assert not list(tmp_path.glob(".out.yaml.*"))  # no temporary file left behind


def test_unknown_group() -> None:
    result = run("specs", "list", "gpus")
    assert result.returncode == 2
    assert "expected one of accelerators" in result.stderr


def test_flops_json_reproduces_the_chapter_inputs() -> None:
    result = run(
        "flops", "gpt2-xl", "--batch", "32", "--seq", "1024", "--attention", "eager", "--json"
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    rows = {row["quantity"]: row for row in data["rows"]}
    # 3·48·(22·B·s·h^2 + 4·B·s^2·h) = 296,674,865,971,200 (the chapter's step total, W-02).
    chapter = rows["chapter 3·L·(22·B·s·h^2 + 4·B·s^2·h)"]["flops"]
    assert chapter == {"value": 296_674_865_971_200, "unit": "FLOP"}
    assert data["tokens_per_step"] == {"value": 32768, "unit": "token"}


def test_ops_csv_is_written(tmp_path: Path) -> None:
    target = tmp_path / "ops.csv"
    result = run("ops", "llama-2-7b", "--batch", "1", "--seq", "512", "--csv", str(target))
    assert result.returncode == 0, result.stderr
    header = target.read_text().splitlines()[0].split(",")
    assert header[:4] == ["name", "kind", "block", "count"]
    assert not list(tmp_path.glob(".ops.csv.*"))


def test_flops_bad_option_is_one_line() -> None:
    result = run("flops", "gpt2", "--recompute", "sometimes")
    assert result.returncode == 2
    assert "recompute" in result.stderr and "Traceback" not in result.stderr


def test_memory_json() -> None:
    result = run(
        "memory",
        "gpt2",
        "--gpu",
        "a100-sxm4-80gb",
        "--batch",
        "4",
        "--seq",
        "1024",
        "--precision",
        "fp32",
        "--optimizer",
        "adam",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    terms = {t["name"]: t["bytes"] for t in data["terms"]}
    # fp32 Adam: weights 4 B/param x 124,439,808 = 497,759,232 B = 0.46357 GiB (hand arithmetic).
    assert terms["weights"]["unit"] == "GiB"
    assert terms["weights"]["value"] == pytest.approx(497_759_232 / 2**30, rel=1e-12)
    assert terms["optimizer states"]["value"] == pytest.approx(2 * 497_759_232 / 2**30, rel=1e-12)
    assert data["fits"] is True
    assert data["capacity"] == {"value": 80, "unit": "GiB"}  # 81,920 MiB visible


def test_fit_answers() -> None:
    result = run(
        "fit",
        "llama-3-8b",
        "--gpu",
        "h100-sxm5-80gb",
        "--seq",
        "4096",
        "--recompute",
        "full",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["fits"] is False and "does not fit" in data["verdict"]
    assert data["max_micro_batch_size"] == 0  # 128 GB of model states on an 80 GB card
    assert data["min_gpus_zero3"] >= 2
    assert data["smallest_catalog_gpu"] is None or isinstance(data["smallest_catalog_gpu"], str)


def test_step_json() -> None:
    result = run(
        "step", "llama-3-8b", "--gpu", "h100-sxm5-80gb", "--batch", "2", "--seq", "2048", "--json"
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["step_time"]["unit"] == "ms" and data["step_time"]["value"] > 0
    assert 0 < data["mfu"] <= 1
    assert sum(k["share"] for k in data["by_kind"]) == pytest.approx(1.0)


def test_roofline_writes_png(tmp_path: Path) -> None:
    target = tmp_path / "roofline.png"
    result = run(
        "roofline",
        "gpt2",
        "--gpu",
        "a100-sxm4-80gb",
        "--gpu",
        "h100-sxm5-80gb",
        "--out",
        str(target),
        "--json",
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    ridges = {g["gpu"]: round(g["ridge_point"]["value"]) for g in data["gpus"]}
    assert ridges == {"a100-sxm4-80gb": 153, "h100-sxm5-80gb": 295}
    assert target.read_bytes()[:4] == b"\x89PNG"


def test_bench_calibrate_validate_commands(tmp_path: Path) -> None:
    out = tmp_path / "results"
    result = run(
        "bench",
        "--out",
        str(out),
        "--only",
        "gemm",
        "--only",
        "launch",
        "--only",
        "memory",
        "--format",
        "fp32",
    )
    assert result.returncode == 0, result.stderr
    assert (out / "results.csv").exists() and (out / "metadata.json").exists()
    profile = tmp_path / "profile.yaml"
    result = run("calibrate", str(out), "--out", str(profile))
    assert result.returncode == 0, result.stderr
    shown = json.loads(run("specs", "show", str(profile), "--json").stdout)
    assert shown["kind"] == "accelerator" and shown["name"] == "measured-cpu"
    result = run(
        "validate",
        str(out),
        "--profile",
        str(profile),
        "--json",
        "--plot",
        str(tmp_path / "errors.png"),
    )
    assert result.returncode == 0, result.stderr
    assert "gemm" in json.loads(result.stdout)["summary"]
    assert (tmp_path / "errors.png").read_bytes()[:4] == b"\x89PNG"
    help_text = run("bench", "--help").stdout
    assert "torchrun" in help_text


def test_plan_defaults_print_the_table_and_write_plots(tmp_path: Path) -> None:
    result = run("plan", "--plots", str(tmp_path))
    assert result.returncode == 0, result.stderr
    for name in ("wall clock", "GPU-hours", "energy", "rental cost", "operational CO2e"):
        assert name in result.stdout
    for name in ("roofline.png", "memory.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plan_json_reproduces_the_chapter_rent_vs_buy_inputs() -> None:
    # W-12 in napkin mode: 1,000 H100 at 494.5 TFLOP/s sustained, USD 3/GPU-hour, USD 30,000
    # per GPU; 6·N·D FLOPs with Llama-2-70B's exact N. Break-even = 30e6 / rental (definition).
    result = run(
        "plan", "llama-2-70b", "--gpu", "h100-sxm5-80gb", "--gpus", "1000", "--tokens", "2T",
        "--price", "3", "--purchase", "30000", "--sustained", "494.5", "--batch", "4",
        "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    figures = {f["name"]: f for f in json.loads(result.stdout)["figures"]}
    rental = figures["rental cost"]["value"]["value"]
    assert figures["rent-vs-buy break-even"]["value"]["value"] == pytest.approx(30e6 / rental)
    n = mlcost.model("llama-2-70b").parameter_count
    # The chapter's USD 1,415,571 for 70e9 parameters, scaled to the exact count (1e-4: the
    # chapter's inputs are rounded to 989 TFLOP/s; whole steps add 2e-6).
    assert rental == pytest.approx(1_415_571.28 * n / 70e9, rel=1e-4)
    assert all(f["source"] for f in figures.values())


def test_plan_bad_tokens_is_one_line() -> None:
    result = run("plan", "--tokens", "lots")
    assert result.returncode == 2
    assert "--tokens" in result.stderr and "Traceback" not in result.stderr
