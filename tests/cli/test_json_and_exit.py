"""Issue 64: one JSON shape for every ``--json`` output (validated against the schema shipped in
the package with the ``jsonschema`` library) and one meaning per exit status: 0 an answer, 1
the answer "does not fit", 2 bad input (docs/cli.md)."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest

from tests.cli.conftest import Cli

SCHEMA = json.loads(resources.files("mlcost.data").joinpath("cli-output.schema.json").read_text())

#: One cheap command line per command (and group subcommand) that prints JSON.
JSON_COMMANDS = [
    ("plan", "gpt2", "--gpu", "h100-sxm5-80gb", "--gpus", "1", "--tokens", "1e9"),
    ("serve", "gpt2", "--prompt", "100", "--output-tokens", "16"),
    ("summary", "--model", "gpt2"),
    ("flops", "gpt2"),
    ("ops", "gpt2"),
    ("memory", "gpt2"),
    ("fit", "gpt2"),
    ("fit", "gpt2", "--gpu", "rtx-4090,l40s"),
    ("step", "gpt2"),
    ("roofline", "gpt2", "--gpu", "h100-sxm5-80gb"),
    ("energy", "--gpu-hours", "1000", "--region", "us"),
    ("parallel", "gpt2", "--gpus", "8"),
    ("specs", "list", "models"),
    ("specs", "show", "gpt2"),
    ("checkpoint", "activations", "gpt2"),
    ("comm", "allreduce"),
]
#: Each does not fit its GPU: 70B parameters need over 1 TB for training and 140 GB of bf16
#: weights to serve, against 80 GB.
DOES_NOT_FIT = [
    ("plan", "llama-2-70b", "--gpu", "h100-sxm5-80gb", "--gpus", "1"),
    ("fit", "llama-2-70b", "--gpu", "h100-sxm5-80gb"),
    ("memory", "llama-2-70b", "--gpu", "h100-sxm5-80gb"),
    ("serve", "llama-2-70b", "--gpu", "h100-sxm5-80gb"),
]
BAD_INPUT = [
    ("plan", "--gpu", "no-such-gpu"),
    ("fit", "gpt2", "--gpu", "no-such-gpu"),
    ("memory", "gpt2", "--memory-model", "jax"),
    ("serve", "gpt2", "--tp", "0"),
]


def _ids(args: tuple[str, ...]) -> str:
    return " ".join(args[:2])


@pytest.mark.parametrize("args", JSON_COMMANDS, ids=_ids)
def test_every_json_output_has_the_one_shape(cli: Cli, args: tuple[str, ...]) -> None:
    result = cli(*args, "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    jsonschema.validate(data, SCHEMA)
    assert data["command"] == " ".join(a for a in args[:2] if a in _COMMAND_WORDS)


_COMMAND_WORDS = {
    "plan", "serve", "summary", "flops", "ops", "memory", "fit", "step", "roofline", "energy",
    "parallel", "specs", "list", "show", "checkpoint", "activations", "comm", "allreduce",
}  # fmt: skip


@pytest.mark.parametrize("args", DOES_NOT_FIT, ids=_ids)
def test_does_not_fit_is_an_answer_with_status_1(cli: Cli, args: tuple[str, ...]) -> None:
    shown = cli(*args)
    assert shown.exit_code == 1, shown.stderr
    assert "does not fit" in shown.stdout and "error" not in shown.stderr
    as_json = cli(*args, "--json")
    assert as_json.exit_code == 1
    data = json.loads(as_json.stdout)
    jsonschema.validate(data, SCHEMA)
    assert data["fits"] is False


@pytest.mark.parametrize("args", BAD_INPUT, ids=_ids)
def test_bad_input_is_status_2_with_the_one_shape(cli: Cli, args: tuple[str, ...]) -> None:
    shown = cli(*args)
    assert shown.exit_code == 2 and shown.stderr.startswith("error: ")
    as_json = cli(*args, "--json")
    data = json.loads(as_json.stdout)
    jsonschema.validate(data, SCHEMA)
    assert as_json.exit_code == data["exit_code"] == 2


def test_the_schema_refuses_what_it_should() -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"command": "plan"}, SCHEMA)  # no version
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"schema_version": 1, "command": "plan", "error": "x"}, SCHEMA)
