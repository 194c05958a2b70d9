"""The command line through its real entry point, :func:`mlcost.cli.main`, in-process: the
arguments in ``sys.argv``, standard output and error captured, the exit status from
``SystemExit`` (status 2 and one line on stderr for every user error)."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from unittest import mock

import pytest

from mlcost.cli import main


@dataclass(frozen=True)
class CliResult:
    exit_code: int
    stdout: str
    stderr: str


def invoke(*args: str) -> CliResult:
    """Run ``mlcost ARGS`` in this process."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        mock.patch.object(sys, "argv", ["mlcost", *args]),
    ):
        try:
            main()
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    return CliResult(code, out.getvalue(), err.getvalue())


Cli = Callable[..., CliResult]


def invoke_json(*args: str) -> Any:
    """Run ``mlcost ARGS --json``; it must succeed. Its output, parsed."""
    result = invoke(*args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture
def cli() -> Cli:
    return invoke
