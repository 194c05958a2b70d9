"""A ``--plot`` destination that cannot be written is refused before the command computes
anything: one line naming the option and the path, exit 2. The computation is replaced by one
that fails the test if it runs, so a check placed after the work is caught."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from tests.cli.conftest import invoke

#: Where each command's work starts, and the command line with its ``--plot`` at the end.
COMMANDS = {
    "roofline": ("mlcost.cli.timing.step_time", ["roofline", "gpt2", "--plot"]),
    "validate": (
        "mlcost.cli.measure.validate_published_serving",
        ["validate", "--published", "--plot"],
    ),
    "plan": ("mlcost.cli.plan.Plan", ["plan", "gpt2", "--plot-dir"]),
}


def _never(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the command computed before checking its --plot destination")


def _refused(command: str, destination: Path) -> str:
    target, argv = COMMANDS[command]
    with mock.patch(target, _never):
        result = invoke(*argv, str(destination))
    assert result.exit_code == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    option = argv[-1]  # --plot, or plan's --plot-dir
    assert len(lines) == 1 and lines[0].startswith(f"error: {option}: "), result.stderr
    return lines[0]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_destination_under_a_file_is_refused_first(command: str, tmp_path: Path) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_text("not a folder")
    line = _refused(command, plain / "out")
    assert f"{plain} is a file" in line


@pytest.mark.parametrize("command", ["roofline", "validate"])
def test_a_file_destination_in_a_missing_folder_is_refused_first(
    command: str, tmp_path: Path
) -> None:
    line = _refused(command, tmp_path / "missing" / "figure.png")
    assert f"{tmp_path / 'missing'} does not exist" in line


@pytest.mark.parametrize("command", ["roofline", "validate"])
def test_a_file_destination_that_is_a_folder_is_refused_first(command: str, tmp_path: Path) -> None:
    assert f"{tmp_path} is a folder" in _refused(command, tmp_path)


def test_a_folder_destination_that_is_a_file_is_refused_first(tmp_path: Path) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_text("not a folder")
    assert f"{plain} is a file" in _refused("plan", plain)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_name_longer_than_the_file_system_allows_is_refused_first(
    command: str, tmp_path: Path
) -> None:
    limit = os.pathconf(tmp_path, "PC_NAME_MAX")
    line = _refused(command, tmp_path / ("x" * (limit + 1)))
    assert f"{limit + 1} bytes" in line


def test_the_longest_file_name_the_atomic_write_allows_is_written(tmp_path: Path) -> None:
    """The atomic write's temporary file is named ``.NAME.XXXXXXXX`` (10 bytes more), so a file
    name of ``NAME_MAX - 10`` bytes is the longest that can be written: it is, and one byte more
    is refused before the work (it would fail at the write: the temporary name too long)."""
    limit = os.pathconf(tmp_path, "PC_NAME_MAX")
    longest = tmp_path / ("r" * (limit - 14) + ".png")  # limit - 10 bytes
    written = invoke("roofline", "--plot", str(longest))
    assert written.exit_code == 0, written.stderr
    assert longest.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    line = _refused("roofline", tmp_path / ("r" * (limit - 13) + ".png"))
    assert f"at most {limit - 10}" in line
    with pytest.raises(OSError):  # what the write itself would have met
        (tmp_path / ("." + "r" * (limit - 13) + ".png." + "x" * 8)).write_bytes(b"")
