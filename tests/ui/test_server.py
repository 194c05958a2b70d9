"""``mlcost ui``'s endpoints over HTTP (no browser), and ``mlcost plan --html``: one-line errors
for a bad query and a bad or oversized upload, an uploaded config.json read by the same loader as
the CLI, the exports (JSON back to the same state, and a command line that gives the page's
numbers when run), the static report."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mlcost
from mlcost.ui.page import MAX_UPLOAD_BYTES
from mlcost.ui.state import UiState
from mlcost.ui.testing import running_ui
from tests.conftest import under_test_env
from tests.specs.test_hf_import import MISTRAL_CONFIG


@pytest.fixture(scope="module")
def address() -> Iterator[str]:
    with running_ui(env=under_test_env()) as where:
        yield where


def get(address: str, path: str) -> Any:
    with urllib.request.urlopen(address + path.lstrip("/"), timeout=60) as response:
        body = response.read().decode()
    return json.loads(body) if body[:1] in "{[" else body


def upload(address: str, name: str, data: bytes, kind: str = "model") -> dict[str, Any]:
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    request = urllib.request.Request(
        f"{address}upload?kind={kind}",
        data=body,
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return dict(json.loads(response.read()))


def test_listens_on_loopback_only(address: str) -> None:
    assert address.startswith("http://127.0.0.1:")


def test_a_bad_query_is_one_line(address: str) -> None:
    answer = get(address, "/answer?gpus=eight")
    assert answer["error"] and answer["html"].count("<p") == 1
    assert "gpus" in answer["html"] and "eight" in answer["html"]
    answer = get(address, "/answer?gpu=h100-sxm-80gb")  # a near miss: the catalog suggests
    assert "h100-sxm5-80gb" in answer["html"] and "Traceback" not in answer["html"]


def test_uploads(address: str) -> None:
    good = upload(address, "config.json", json.dumps(MISTRAL_CONFIG).encode())
    assert "error" not in good, good
    answer = get(address, f"/answer?upload={good['id']}&gpus=8")
    plan = mlcost.Plan(
        mlcost.from_hf_config(MISTRAL_CONFIG),
        gpu="h100-sxm5-80gb",
        gpus=8,
        tokens=1e10,
        config=mlcost.TrainingConfig(sequence_length=4096),
        region="world",
    )
    usd = plan.cost()["rental cost"].to("USD").magnitude
    shown = float(answer["html"].split('data-usd="')[1].split('"')[0])
    assert shown == pytest.approx(usd, rel=1e-6)
    broken = upload(address, "config.json", b"{not json")
    assert "config.json" in broken["error"] and "\n" not in broken["error"]
    too_big = upload(address, "config.json", b" " * (MAX_UPLOAD_BYTES + 10))
    assert "at most" in too_big["error"]
    wrong_kind = upload(address, "model.bin", b"\0\1")
    assert "expected a config.json" in wrong_kind["error"]


def test_exports_reproduce_the_answer(address: str, tmp_path: Path) -> None:
    query = "gpu=a100-sxm4-80gb&gpus=16&tokens=2e10&region=france&price=2"
    state = UiState.from_query(dict(p.split("=") for p in query.split("&")))
    assert UiState(**get(address, f"/export?{query}&format=json")) == state
    answer = get(address, f"/answer?{query}")
    shown = float(answer["html"].split('data-usd="')[1].split('"')[0])
    # the command line the page shows, run as it is (plus --json), prices the same run
    words = answer["cli"].split()
    assert words[:2] == ["mlcost", "plan"]
    run = subprocess.run(
        [sys.executable, "-m", "mlcost.cli", *words[1:], "--json"],
        capture_output=True,
        text=True,
        env=under_test_env(),
        check=True,
    )
    figures = {f["name"]: f for f in json.loads(run.stdout)["figures"]}
    assert figures["rental cost"]["value"]["value"] == pytest.approx(shown, rel=1e-6)
    # 16 GPUs x 2 USD/hour: the cost is GPU-hours x 2 (a hand check of the price input)
    hours = figures["GPU-hours"]["value"]
    assert hours["unit"] in ("h", "hour")
    assert shown == pytest.approx(hours["value"] * 2, rel=1e-6)
    snippet = get(address, f"/export?{query}&format=python")
    namespace: dict[str, Any] = {}
    exec(snippet.replace("print(plan.summary())", ""), namespace)
    assert namespace["plan"].cost()["rental cost"].to("USD").magnitude == pytest.approx(shown)


def test_plan_html_report(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    command = [sys.executable, "-m", "mlcost.cli", "plan", "gpt2", "--gpu", "a100-sxm4-80gb"]
    command += ["--gpus", "8", "--tokens", "1e9", "--html", str(target)]
    env = under_test_env()
    subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    text = target.read_text()
    assert "<script" not in text and 'data-testid="verdict"' in text
    assert 'data-testid="memory"' in text and "explain()" in text
    again = subprocess.run(command, capture_output=True, text=True, env=env)
    assert again.returncode == 2
    assert again.stderr.strip().startswith("error: --html:") and "exists" in again.stderr


def test_a_profile_replaces_the_gpu_and_a_system_names_the_node(
    address: str, tmp_path: Path
) -> None:
    # a spec YAML of a GPU is what a calibrated profile is read as (mlcost.accelerator(path))
    text = (Path(mlcost.__file__).parents[1] / "specs/accelerators/h200-sxm-141gb.yaml").read_text()
    profile = upload(address, "profile.yaml", text.encode(), kind="profile")
    assert "error" not in profile, profile
    answer = get(address, f"/answer?profile={profile['id']}&gpu=a100-sxm4-40gb")
    assert "--gpu profile.yaml" in answer["cli"] and "profile=" in answer["query"]
    mine = tmp_path / "profile.yaml"
    mine.write_text(text)
    config = mlcost.TrainingConfig(sequence_length=4096)
    plan = mlcost.Plan("llama-3-8b", gpu=str(mine), gpus=8, tokens=1e10, config=config)
    shown = float(answer["html"].split('data-usd="')[1].split('"')[0])
    assert shown == pytest.approx(plan.cost()["rental cost"].to("USD").magnitude, rel=1e-6)
    answer = get(address, "/answer?system=dgx-h200&gpus=16")
    plan = mlcost.Plan("llama-3-8b", system="dgx-h200", gpus=16, tokens=1e10, config=config)
    shown = float(answer["html"].split('data-usd="')[1].split('"')[0])
    assert shown == pytest.approx(plan.cost()["rental cost"].to("USD").magnitude, rel=1e-6)
    assert "--system dgx-h200" in answer["cli"]
    bad = upload(address, "profile.yaml", b"kind: accelerator\nname: x\n", kind="profile")
    assert "profile.yaml" in bad["error"] and "\n" not in bad["error"]
