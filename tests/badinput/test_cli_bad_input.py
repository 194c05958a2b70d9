"""The bad-input suite on the command line (issue 15): every case ends in mlcost's own answer,
never a traceback. Run with the interpreter of a fresh virtual environment that has exactly
mlcost's runtime dependencies (``pip install .``: no click, no torch, no test tools), because a
test environment pulls in packages (click) the runtime lacks, and that hid a whole class of
crashes before.

The class of the answer is asserted, not its text: exit 0 with output, or exit 2 with exactly
one line on stderr that starts with ``error:`` (with ``--json``: one JSON object with
``error`` on stdout); ``--json`` output is strict JSON (no NaN or Infinity)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path
from typing import Any

import pytest

from tests.badinput.cli_cases import (
    ANSWERED,
    CHECKOUT,
    REFUSED,
    UNCHANGED,
    cli_cases,
    issue65_cases,
    issue65_paths,
)

ROOT = Path(__file__).resolve().parents[2]


def runtime_env(**extra: str) -> dict[str, str]:
    """The environment the runtime-only interpreter runs in: this one's, without the variables
    that would put other code before its installed packages (``PYTHONPATH`` pointing at a
    checkout would import the checkout's ``mlcost`` instead of the installed wheel)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return {**env, **extra}


@pytest.fixture(scope="module")
def runtime_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment with mlcost and its runtime dependencies only. It gets no pip of
    its own: the test environment's pip installs into it (``pip --python``, pip >= 22.3) without
    compiling bytecode ahead (each module is compiled on its first import instead): 7 s instead
    of 20 s for ``ensurepip`` plus a compiled install, measured on the 2-CPU CI machine."""
    home = tmp_path_factory.mktemp("runtime-env")
    venv.EnvBuilder(with_pip=False).create(home)
    python = home / "bin" / "python"
    # Built from a copy of what the wheel is made of, so the build's own folders (build/,
    # *.egg-info) are never written into the checkout, where two test workers could collide.
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    for name in ("mlcost", "specs"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
         "--no-compile", "--disable-pip-version-check", str(source)],
        check=True, timeout=900, capture_output=True, text=True,
    )  # fmt: skip
    (home / "install.log").write_text(installed.stdout + installed.stderr)
    return python


@pytest.fixture(scope="module")
def bad_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder the cases' files are written into (and their outputs would go)."""
    return tmp_path_factory.mktemp("bad-inputs")


@pytest.fixture(scope="module")
def outcomes(runtime_python: Path, bad_folder: Path) -> list[Any]:
    folder = bad_folder
    cases = cli_cases(folder)
    cases_file, results_file = folder / "cases.json", folder / "results.json"
    cases_file.write_text(json.dumps(cases))
    subprocess.run(
        [str(runtime_python), str(ROOT / "tests/badinput/run_cli_cases.py"), str(cases_file),
         str(results_file)],
        check=True, timeout=2400, cwd=folder, env=runtime_env(MPLBACKEND="Agg"),
    )  # fmt: skip
    return list(json.loads(results_file.read_text()))


@pytest.mark.parametrize("module", ["click", "torch", "pytest"])
def test_the_runtime_environment_lacks_test_only_packages(
    runtime_python: Path, module: str
) -> None:
    """The packages the test environment brings (click through typer's test extras, torch,
    pytest) are absent, so the suite sees what a user with ``pip install mlcost`` sees."""
    probe = subprocess.run(
        [str(runtime_python), "-c", f"import {module}"],
        capture_output=True,
        check=False,
        env=runtime_env(),
    )
    assert probe.returncode != 0, f"{module} importable in the runtime-only environment"


def test_the_install_ships_every_catalog_and_data_file(runtime_python: Path) -> None:
    """The wheel carries the whole catalog (``specs/<group>/*.yaml`` as ``mlcost._catalog``) and
    ``mlcost/data``: the installed files are exactly the checkout's."""
    listing = subprocess.run(
        [str(runtime_python), "-c",
         "import mlcost, pathlib; root = pathlib.Path(mlcost.__file__).parent\n"
         "for folder in ('_catalog', 'data'):\n"
         "    for p in sorted((root / folder).rglob('*')):\n"
         "        if p.is_file() and '__pycache__' not in p.parts: print(p.relative_to(root))"],
        capture_output=True, text=True, check=True, cwd=runtime_python.parents[1],
        env=runtime_env(),
    ).stdout.split()  # the installed package, not the checkout's  # fmt: skip
    catalog = [p for p in (ROOT / "specs").rglob("*") if p.is_file()]
    expected = [f"_catalog/{p.relative_to(ROOT / 'specs')}" for p in catalog]
    expected += [f"data/{p.name}" for p in (ROOT / "mlcost" / "data").iterdir() if p.is_file()]
    assert len(catalog) > 100
    assert sorted(listing) == sorted(expected)


def test_the_build_draws_no_setuptools_warning(runtime_python: Path) -> None:
    """The build configuration is current: no package left out of ``packages`` (setuptools says
    such packages "would be ignored" by a later version) and no deprecated field (the TOML-table
    ``license``, refused from 2027-02-18)."""
    log = (runtime_python.parents[1] / "install.log").read_text()
    assert "absent from the `packages` configuration" not in log, log[:2000]
    assert "deprecated" not in log.lower(), log[:2000]


def test_there_are_at_least_300_cases(outcomes: list[Any]) -> None:
    assert len(outcomes) >= 300


def _strict_json(text: str) -> Any:
    def refuse(name: str) -> None:
        raise ValueError(f"{name} in JSON output")

    return json.loads(text, parse_constant=refuse)


def test_every_case_is_an_answer_or_a_one_line_error(outcomes: list[Any]) -> None:
    wrong = []
    for case in outcomes:
        argv, code, out, err = case["argv"], case["code"], case["stdout"], case["stderr"]
        as_json = "--json" in argv
        if case["escaped"] or "Traceback" in out + err:
            wrong.append(f"{argv}: traceback\n{(case['escaped'] or err)[-600:]}")
        elif code == 0:
            if not out.strip() and argv:
                wrong.append(f"{argv}: exit 0 with no output")
            if as_json and out.strip():
                try:
                    _strict_json(out)
                except ValueError as error:
                    wrong.append(f"{argv}: --json output is not strict JSON ({error})")
        elif code == 1:  # the answer "does not fit" (docs/cli.md, exit status)
            if "does not fit" not in out or err.strip().startswith("error"):
                wrong.append(f"{argv}: exit 1 without the answer 'does not fit': {out[:200]!r}")
        elif code == 2:
            if as_json:
                try:
                    answer = _strict_json(out)
                except ValueError as error:
                    wrong.append(f"{argv}: --json error is not JSON ({error}): {out[:200]}")
                    continue
                if not (isinstance(answer, dict) and answer.get("error")):
                    wrong.append(f"{argv}: --json error without 'error': {out[:200]}")
            else:
                lines = [line for line in err.splitlines() if line.strip()]
                if len(lines) != 1 or not lines[0].startswith("error: "):
                    wrong.append(f"{argv}: expected one 'error:' line, got {err[:400]!r}")
        else:
            wrong.append(f"{argv}: exit {code}\n{err[-400:]}")
    assert not wrong, f"{len(wrong)} of {len(outcomes)} cases:\n" + "\n".join(wrong[:40])


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["frobnicate"], "No such command"),
        (["plan", "--seq", "100000"], "max_position_embeddings"),
        (["plan", "--tp", "3"], "divisor of the 32 attention heads"),
        (["plan", "--sustained", "1e20"], "at most the h100-sxm5-80gb dense bf16 peak"),
        (["memory", "gpt2", "--mini-sequences", "0"], "mini_sequences"),
        (["comm", "allreduce", "--ranks", "0"], "ranks"),
        (["bench", "--device", "tpu"], "--device"),
        (["bench", "--format", "fp7"], "fp7"),
        (["memory", "gpt2", "--tp", "5"], "divisor of the 12 attention heads"),
        (["fit", "gpt2", "--pp", "100"], "100 pipeline chunks"),
    ],
)
def test_named_examples_of_the_issue_give_their_reason(
    outcomes: list[Any], argv: list[str], expected: str
) -> None:
    case = next(c for c in outcomes if c["argv"] == argv)
    assert case["code"] == 2, case
    assert expected in case["stderr"], case["stderr"]


def test_files_in_a_folder_path_that_is_a_file_are_refused(outcomes: list[Any]) -> None:
    plotted = [c for c in outcomes if c["argv"][:2] == ["plan", "--plot-dir"]]
    assert plotted and all(c["code"] == 2 for c in plotted), plotted


def test_a_fresh_interpreter_runs_the_cli_entry_point(runtime_python: Path) -> None:
    """The installed console script (not the in-process call) with a usage error."""
    script = runtime_python.parent / "mlcost"
    done = subprocess.run(
        [str(script), "frobnicate"], capture_output=True, text=True, check=False, env=runtime_env()
    )
    assert done.returncode == 2 and done.stderr.startswith("error: "), done
    assert sys.executable != str(runtime_python)


def test_the_runtime_interpreter_imports_the_installed_package_under_a_pythonpath(
    runtime_python: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``PYTHONPATH`` naming the checkout (as ``benchmarks/suite_time.py`` sets it) does not
    reach the runtime-only interpreter: it still imports the installed wheel, not the checkout."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    found = subprocess.run(
        [str(runtime_python), "-c", "import mlcost; print(mlcost.__file__)"],
        capture_output=True, text=True, check=True, cwd=runtime_python.parents[1],
        env=runtime_env(),
    ).stdout.strip()  # fmt: skip
    assert Path(found).is_relative_to(runtime_python.parents[1]), found
    assert not Path(found).is_relative_to(ROOT), found


# ----- issue 65: every kind of bad input gets its class of answer ---------------------------------
#: A NaN or an infinity printed as a number (``nan``, ``-inf``, ``NaN``), not inside a word.
NOT_A_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:nan|inf|infinity)(?![\w])", re.IGNORECASE)
ISSUE65_COUNT = len(issue65_cases(Path("folder")))


def _outcome(outcomes: list[Any], argv: list[str]) -> Any:
    return next(c for c in outcomes if c["argv"] == argv)


@pytest.mark.parametrize("index", range(ISSUE65_COUNT))
def test_each_kind_of_issue_65_gets_its_class_of_answer(
    outcomes: list[Any], bad_folder: Path, index: int
) -> None:
    """Refused: exit 2 and one line naming the field. Answered: exit 0, no NaN or infinity in
    the answer, and what it changed or what disagrees said on stderr. Never a traceback, never
    a hang (each case runs under an alarm: a FIFO is refused, not waited on)."""
    argv, kind, fragment = issue65_cases(bad_folder)[index]
    case = _outcome(outcomes, argv)
    assert case["code"] != "timeout", f"{argv}: hung"
    assert not case["escaped"] and "Traceback" not in case["stderr"], case
    if kind == REFUSED:
        assert case["code"] == 2, case
        if "--json" in argv:
            assert fragment in json.loads(case["stdout"])["error"], case
            return
        lines = [line for line in case["stderr"].splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), case
        assert fragment in lines[0], case
    else:
        assert kind == ANSWERED
        assert case["code"] in (0, 1), case  # 1: the answer "does not fit" (docs/cli.md)
        assert not NOT_A_NUMBER.search(case["stdout"]), case["stdout"][-2000:]
        assert fragment in " ".join(case["stderr"].split()), case  # notes wrap at 80 columns


def test_no_case_hangs_or_takes_long(outcomes: list[Any]) -> None:
    hung = [c["argv"] for c in outcomes if c["code"] == "timeout"]
    assert not hung, hung


def test_no_answer_prints_nan_or_infinity(outcomes: list[Any]) -> None:
    """Every answer (exit 0) of the whole suite: an unknown number reads ``unknown``, never
    ``nan``; JSON has ``null`` (checked as strict JSON above)."""
    shown = [
        (c["argv"], NOT_A_NUMBER.search(c["stdout"]).group(0))  # type: ignore[union-attr]
        for c in outcomes
        if c["code"] == 0 and NOT_A_NUMBER.search(c["stdout"])
    ]
    assert not shown, shown[:10]


def test_no_input_or_existing_file_is_replaced_and_no_folder_created(
    outcomes: list[Any], bad_folder: Path
) -> None:
    """The data-loss cases (an input named as the output, with and without --force; an
    existing file) leave every file as it was; no refused case creates a folder or a file."""
    assert outcomes
    paths = issue65_paths(bad_folder)
    expected = {
        "model": (CHECKOUT / "specs/models/gpt2.yaml").read_text(),
        "existing_csv": "mine\n",
        "existing_yaml": "mine: 1\n",
    }
    for role in UNCHANGED:
        if role in expected:
            assert paths[role].read_text() == expected[role], role
    assert json.loads(paths["config"].read_text())["model_type"] == "gpt2"
    assert not paths["missing"].exists()
    assert not (bad_folder / "issue65" / "new-profile.yaml").exists()
    assert not (bad_folder / "issue65" / "figure.txt").exists()
