"""Issue 64, one grammar: an option name means one thing in every command, with one type and
one default; old spellings are hidden, warn, and give the same answer as the new ones."""

from __future__ import annotations

import types
import typing
from collections import defaultdict
from typing import Any

import pytest
import typer

from mlcost.cli.app import build_app
from mlcost.cli.options import DEPRECATED_OPTIONS
from tests.cli.conftest import Cli

#: Options whose defaults differ by design, with the reason (the test fails on any other).
DIFFERENT_DEFAULTS = {
    # `energy` reproduces a published report, whose usual convention is the GPU's TDP (Meta's
    # model cards); `plan` predicts, with mlcost's measured node power.
    "--accounting": {"measured-node", "gpu-tdp"},
}


def _options() -> dict[str, list[tuple[str, Any]]]:
    """Every option of every command: name -> [(command, typer option)]."""
    found: dict[str, list[tuple[str, Any]]] = defaultdict(list)

    def walk(command: Any, path: str) -> None:
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{path} {name}".strip())
        for param in getattr(command, "params", []):
            if param.param_type_name == "option":
                for flag in param.opts:
                    found[flag].append((path, param))

    walk(typer.main.get_command(build_app()), "")
    return found


def _kind(param: Any) -> Any:
    """The option's value type without ``None`` (``str | None`` -> ``str``), a repeatable
    option's item type (``list[str]`` -> ``str``)."""
    annotation = param.type_descriptor.annotation
    if typing.get_origin(annotation) is list:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        kept = [a for a in typing.get_args(annotation) if a is not type(None)]
        return kept[0] if len(kept) == 1 else tuple(kept)
    return annotation


OPTIONS = _options()
SHARED = sorted(name for name, uses in OPTIONS.items() if len(uses) > 1)


@pytest.mark.parametrize("name", SHARED)
def test_a_shared_option_has_one_type_and_one_default(name: str) -> None:
    visible = [(command, p) for command, p in OPTIONS[name] if not p.hidden]
    kinds = {(_kind(p), p.is_flag) for _, p in visible}
    assert len(kinds) <= 1, f"{name}: {[(c, _kind(p)) for c, p in visible]}"
    defaults = {str(p.default) for _, p in visible if p.default is not None}
    assert len(defaults) <= 1 or defaults == DIFFERENT_DEFAULTS.get(name), (
        f"{name}: {[(c, p.default) for c, p in visible]}"
    )


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_a_folder_option_says_dir_and_a_file_option_does_not(name: str) -> None:
    for command, param in OPTIONS[name]:
        if param.hidden or _kind(param).__name__ != "Path":
            continue
        folder = "folder" in (param.help or "").lower()
        assert folder == name.endswith("-dir"), f"{command} {name}: {param.help}"


def test_the_issue_examples_have_one_meaning_each() -> None:
    def visible(name: str) -> list[tuple[str, str]]:
        return [(c, p.help or "") for c, p in OPTIONS.get(name, []) if not p.hidden]

    assert all("png" in h.lower() or "figure" in h.lower() for _, h in visible("--plot"))
    assert all("micro-batch" in h.lower() for _, h in visible("--batch"))
    assert all("profile" in h.lower() for _, h in visible("--profile"))  # hardware profiles
    assert visible("--output") == []  # tokens are --output-tokens, a file is --out
    assert [c for c, _ in visible("--concurrency")] == ["serve"]


def test_every_hidden_option_is_a_listed_old_spelling() -> None:
    hidden = {(c, n) for n, uses in OPTIONS.items() for c, p in uses if p.hidden}
    listed = {(c, old) for c, renames in DEPRECATED_OPTIONS.items() for old in renames}
    assert hidden == listed
    for command, renames in DEPRECATED_OPTIONS.items():
        for new in renames.values():
            assert any(c == command and not p.hidden for c, p in OPTIONS[new])


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (("memory", "gpt2", "--profile", "megatron"),
         ("memory", "gpt2", "--memory-model", "megatron")),
        (("serve", "gpt2", "--prompt", "100", "--output", "16", "--batch", "4"),
         ("serve", "gpt2", "--prompt", "100", "--output-tokens", "16", "--concurrency", "4")),
    ],
    ids=("memory", "serve"),
)  # fmt: skip
def test_an_old_spelling_warns_and_answers_the_same(
    cli: Cli, old: tuple[str, ...], new: tuple[str, ...]
) -> None:
    before, after = cli(*old), cli(*new)
    assert before.exit_code == after.exit_code == 0, before.stderr
    assert before.stdout == after.stdout
    assert after.stderr == ""
    assert all(line.startswith("warning: ") for line in before.stderr.splitlines())
    assert "deprecated" in before.stderr
