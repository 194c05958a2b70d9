"""``mlcost specs ...``, ``mlcost summary`` and ``--version`` through the real entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import mlcost
from tests.cli.conftest import Cli
from tests.conftest import under_test_env


def test_version(cli: Cli) -> None:
    result = cli("--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"mlcost {mlcost.__version__}"


def test_help_lists_every_command_by_its_own_help(cli: Cli) -> None:
    # `mlcost --help` lists the commands from mlcost.cli.app.COMMANDS without importing them;
    # each summary there must be the first paragraph of the command's own help, which the
    # application with every command imported lists.
    import typer.main

    from mlcost.cli.app import COMMANDS, build_app

    group = typer.main.get_command(build_app())
    for name, (_, _, _, summary) in COMMANDS.items():
        first_paragraph = (group.commands[name].help or "").split("\n\n")[0]  # type: ignore[attr-defined]
        assert " ".join(first_paragraph.split()) == summary, name
    result = cli("--help")
    assert result.exit_code == 0
    listed = " ".join(result.stdout.split())
    assert all(name in listed for name in COMMANDS)
    assert "Collective times on a system (alpha-beta model)" in listed


def test_help_imports_no_command_nor_the_model() -> None:
    # A fresh interpreter: after `mlcost --help`, no command module, pint, numpy or pydantic.
    code = (
        "import contextlib, io, sys\n"
        "sys.argv = ['mlcost', '--help']\n"
        "from mlcost.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n        main()\n    except SystemExit:\n        pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('mlcost', 'pint', 'numpy', "
        "'pydantic'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        env=under_test_env(),
    )  # fmt: skip
    assert done.stdout.split("\n")[0] == str(
        ["mlcost", "mlcost.cli", "mlcost.cli.app", "mlcost.errors"]
    )


def test_plan_loads_neither_numpy_masked_arrays_nor_the_optimizers_it_does_not_use() -> None:
    # A fresh interpreter: `mlcost plan` of a run that fits answers without numpy.ma (which
    # numpy imports on the first call of np.unique: about 10 ms of a command line on a 2-core
    # machine), the activation-checkpoint placement optimizers and the fit search.
    code = (
        "import contextlib, io, sys\n"
        "sys.argv = ['mlcost', 'plan']\n"
        "from mlcost.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    try:\n        main()\n    except SystemExit:\n        pass\n"
        "print('time to train' in out.getvalue() or 'wall clock' in out.getvalue())\n"
        "print(sorted(m for m in sys.modules if m.split('.')[:2] == ['numpy', 'ma']))\n"
        "print(sorted(m for m in sys.modules if m.startswith(('mlcost.checkpointing.', "
        "'mlcost.plan.fit'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        env=under_test_env(),
    )  # fmt: skip
    assert done.stdout.split("\n")[:3] == ["True", "[]", "['mlcost.checkpointing.failures']"]


def test_list_models(cli: Cli) -> None:
    result = cli("specs", "list", "models", "--json")
    assert result.exit_code == 0
    names = {item["name"] for item in json.loads(result.stdout)["items"]}
    assert {"gpt2", "llama-2-7b", "resnet-50", "gemma-2-9b"} <= names


def test_show_json_quantities_are_value_unit_objects(cli: Cli) -> None:
    result = cli("specs", "show", "llama-2-7b", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["name"] == "llama-2-7b"
    assert data["derived"]["parameters"] == 6_738_415_616
    weights = data["derived"]["weights in bf16"]
    assert set(weights) == {"value", "unit"}
    # 6,738,415,616 params x 2 bytes = 13.476831232 GB (hand arithmetic).
    assert weights["unit"] == "GB"
    assert weights["value"] == pytest.approx(13.476831232, rel=1e-12)
    assert data["sources"]["hidden_size"].startswith("Hugging Face config.json")


def test_unknown_name_is_one_line_with_suggestions(cli: Cli) -> None:
    result = cli("specs", "show", "lama-2-7b")
    assert result.exit_code == 2
    assert "did you mean" in result.stderr and "llama-2-7b" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_bad_user_file_is_one_clear_line(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "gpu.yaml"
    path.write_text(
        "kind: accelerator\nname: x\nvendor: v\nmemory_capacity: 1 GiB\n"
        "memory_bandwidth: 700 W\ntdp: 1 W\npeak_compute: [{format: bf16, dense: 1 TFLOP/s}]\n"
    )
    result = cli("specs", "show", str(path))
    assert result.exit_code == 2
    assert "memory_bandwidth" in result.stderr and "Traceback" not in result.stderr


def test_validate_reports_unsourced_numbers(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "gpu.yaml"
    path.write_text(
        "kind: accelerator\nname: x\nvendor: v\nmemory_capacity: 1 GiB\n"
        "memory_bandwidth: 1 TB/s\ntdp: 1 W\npeak_compute: [{format: bf16, dense: 1 TFLOP/s}]\n"
    )
    result = cli("specs", "validate", str(path))
    assert result.exit_code == 2  # a user error: one line, exit status 2 (issue 65)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "memory_capacity" in result.stderr


def test_import_hf_writes_yaml(cli: Cli, tmp_path: Path) -> None:
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
    result = cli("specs", "import-hf", str(config), "--name", "my-llama", "-o", str(output))
    assert result.exit_code == 0, result.stderr
    assert "6,738,415,616 parameters" in result.stdout  # Llama-2-7B's count (test_models.py)
    shown = cli("specs", "show", str(output), "--json")
    assert json.loads(shown.stdout)["name"] == "my-llama"
    assert not list(tmp_path.glob(".out.yaml.*"))  # no temporary file left behind


def test_unknown_group(cli: Cli) -> None:
    result = cli("specs", "list", "gpus")
    assert result.exit_code == 2
    assert "expected one of accelerators" in result.stderr


def test_usage_errors_exit_2_without_a_traceback(cli: Cli) -> None:
    for args in (("frobnicate",), ("plan", "--nope"), ("flops",), ("plan", "--gpus", "1.5")):
        result = cli(*args)
        assert result.exit_code == 2, args
        assert "Traceback" not in result.stderr, args


def _memory_gpt2_after(setup: str) -> subprocess.CompletedProcess[str]:
    """``mlcost memory gpt2`` through the console entry point in a new interpreter (where
    start-up really runs), after the Python lines ``setup``."""
    probe = f"{setup}\nimport sys\nsys.argv = ['mlcost', 'memory', 'gpt2']\n"
    probe += "from mlcost.cli import main\nmain()\n"
    return subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False, timeout=120,
        env=under_test_env(),
    )  # fmt: skip


def test_start_up_turns_the_garbage_collector_back_on() -> None:
    """A fresh process's start-up imports the command line, and its command's module, with the
    cyclic collector off and freezes what it built; the command's own work then runs with the
    collector on (a long sweep must still collect its cycles)."""
    done = _memory_gpt2_after(
        "import gc, sys, atexit\n"
        "atexit.register(lambda: print('gc', gc.isenabled(), gc.get_freeze_count() > 10**4,"
        " file=sys.stderr))\n"
        # What was imported when start-up froze its objects: the command's own module too, and
        # what it imports (the unit registry, numpy), not only the command line's frame.
        "freeze, seen = gc.freeze, ('mlcost.cli.app', 'mlcost.cli.memory', 'mlcost.units')\n"
        "gc.freeze = lambda: print('frozen', *(m in sys.modules for m in seen), file=sys.stderr)"
        " or freeze()"
    )
    assert done.returncode == 0, done.stderr
    assert "GiB" in done.stdout
    assert done.stderr.strip().splitlines() == ["frozen True True True", "gc True True"]


def test_the_command_line_runs_without_pydantic_plugins_unless_asked() -> None:
    """pydantic reads every installed distribution's entry points for its plugins when it
    builds its first validator (about 10 ms of each command line); the command line turns them
    off with pydantic's own switch (``PYDANTIC_DISABLE_PLUGINS=__all__``), so pydantic never
    looks. A user's own value of the switch is kept: with plugins allowed (an empty value),
    pydantic looks for them, which shows that the probe sees the look-up."""
    probe = (
        "import os, sys\n"
        "import pydantic.plugin._loader as loader\n"
        "real = loader.entry_points\n"
        "def spy(*args, **kwargs):\n"
        "    print('plugins looked up', file=sys.stderr)\n"
        "    return real(*args, **kwargs)\n"
        "loader.entry_points = spy\n"
        "sys.argv = ['mlcost', 'memory', 'gpt2']\n"
        "from mlcost.cli import main\n"
        "try:\n"
        "    main()\n"
        "finally:\n"
        "    print('switch', repr(os.environ.get('PYDANTIC_DISABLE_PLUGINS')), file=sys.stderr)\n"
    )
    env = {k: v for k, v in under_test_env().items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    for given, looked, kept in ((None, False, "'__all__'"), ("", True, "''")):
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=False,
            timeout=120, env=env if given is None else {**env, "PYDANTIC_DISABLE_PLUGINS": given},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "GiB" in done.stdout
        assert ("plugins looked up" in done.stderr) is looked, (given, done.stderr)
        assert done.stderr.strip().splitlines()[-1] == f"switch {kept}", (given, done.stderr)


def test_a_command_module_that_does_not_import_is_one_line_not_a_traceback() -> None:
    """Start-up imports the command's module with the collector off; where that import fails,
    the command line reports it as every other failure (one line, status 70), not a traceback."""
    # An import of the command's module raises ImportError.
    done = _memory_gpt2_after("import sys\nsys.modules['mlcost.cli.memory'] = None")
    assert done.returncode == 70, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("error: internal error (ModuleNotFoundError")
    assert len(done.stderr.strip().splitlines()) == 1
