"""A user's own node spec works wherever a catalog system does: ``plan``, ``parallel`` and
``comm`` take the file, and give the same answers as the catalog node it copies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import Cli, invoke_json

# The DGX H100 written out by a user under another name (figures from NVIDIA's DGX H100
# datasheet, as the catalog's dgx-h100.yaml has them).
OWN_NODE = """\
kind: node
name: my-h100-box
accelerator: h100-sxm5-80gb
accelerators_per_node: 8
intra_node_link: nvlink-4
nics: [{link: infiniband-ndr, count: 8}]
storage: [{device: nvme-pcie4-intel-p5500-3.84tb, count: 8}]
power: 10.2 kW
training_power: 8.4 kW
references:
  ds: "NVIDIA DGX H100 datasheet (2023), table 'System Specifications'"
  latif: "Latif et al., IEEE Access 13 (2025) 61740: 8.4 kW measured while training"
sources:
  training_power: latif
  accelerators_per_node: ds
  nics: ds
  storage: ds
  power: ds
"""


@pytest.fixture
def own_node(tmp_path: Path) -> Path:
    path = tmp_path / "my-h100-box.yaml"
    path.write_text(OWN_NODE)
    return path


def _strip_names(data: object) -> object:
    """The JSON with the system's name and the sources quoted taken out (what differs)."""
    text = json.dumps(data).replace("my-h100-box", "SYSTEM").replace("dgx-h100", "SYSTEM")
    return _without_sources(json.loads(text))


def _without_sources(data: object) -> object:
    if isinstance(data, dict):
        return {k: _without_sources(v) for k, v in data.items() if k != "source"}
    if isinstance(data, list):
        return [_without_sources(v) for v in data]
    return data


@pytest.mark.parametrize(
    "args",
    [
        ("comm", "allreduce", "--nodes", "2"),
        ("parallel", "gpt2", "--nodes", "1", "--top", "3"),
        ("plan", "gpt2", "--gpus", "16", "--tokens", "1e9", "--dp", "16"),
    ],
    ids=["comm", "parallel", "plan"],
)
def test_a_users_node_file_is_a_system(cli: Cli, own_node: Path, args: tuple[str, ...]) -> None:
    mine = invoke_json(*args, "--system", str(own_node))
    catalog = invoke_json(*args, "--system", "dgx-h100")
    assert "my-h100-box" in json.dumps(mine)
    assert _strip_names(mine) == _strip_names(catalog)
