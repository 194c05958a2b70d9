"""``--recompute-modules`` (Megatron-Core's selective recomputation regions) on the commands that
take ``--recompute``: parsed into ``Layout.recompute_modules``, bad values one line and exit 2."""

from __future__ import annotations

import json

from mlcost.cli.options import layout_from_options
from tests.cli.conftest import Cli


def test_the_comma_list_becomes_the_layout_tuple() -> None:
    layout = layout_from_options(
        {"recompute": "selective", "recompute_modules": "layernorm, mla_up_proj,moe_act"}
    )
    assert layout is not None
    assert layout.recompute_modules == ("layernorm", "mla_up_proj", "moe_act")


def test_memory_with_modules_keeps_less_than_without(cli: Cli) -> None:
    # The layer norms recomputed: each keeps its BF16 input instead of an FP32 copy, 1/rms and
    # its output, and the projections reading the output keep nothing of it, so the activations
    # fall; the rest of the memory does not move.
    common = ("memory", "llama-2-7b", "--seq", "1024", "--recompute", "selective", "--json")
    # (exit 1: llama-2-7b with full Adam does not fit one 80 GB GPU either way)
    plain = cli(*common)
    modules = cli(*common, "--recompute-modules", "core_attn,layernorm")
    assert plain.exit_code == modules.exit_code == 1, modules.stderr

    def terms(out: str) -> dict[str, float]:
        return {t["name"]: t["bytes"]["value"] for t in json.loads(out)["terms"]}

    before, after = terms(plain.stdout), terms(modules.stdout)
    assert after["activations"] < before["activations"]
    assert after["weights"] == before["weights"]


def test_a_module_without_selective_is_one_line_and_exit_2(cli: Cli) -> None:
    result = cli("memory", "llama-2-7b", "--recompute-modules", "layernorm")
    assert result.exit_code == 2
    assert "recompute_modules" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_module_the_model_lacks_is_one_line_and_exit_2(cli: Cli) -> None:
    result = cli("memory", "llama-2-7b", "--recompute", "selective", "--recompute-modules", "moe")
    assert result.exit_code == 2
    assert "mixture-of-experts" in result.stderr
