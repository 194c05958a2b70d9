"""Write ``docs/validation-table.md``: every public function and class of mlcost (the names of
``mlcost.__all__`` and of each public module's ``__all__``) and what it checks at its boundary
(issue 65), read from its own source: the checkers of :mod:`mlcost.checks`, the unit guard,
the catalog resolvers, the structure checks and its own ``raise`` of mlcost's errors.

``python scripts/validation_table.py`` rewrites the file; ``--check`` exits 1 when it is out of
date (``tests/test_validation_table.py`` runs that).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "docs" / "validation-table.md"

#: What a call in a function's own source says it checks: (pattern, words in the table).
CHECKS: tuple[tuple[str, str], ...] = (
    (r"\bargument\(", "record arguments: the type, or a dict of its fields (validated)"),
    (r"\bfinite\(|\bpositive_magnitude\(|\bcheck_positive\(", "numbers finite and in range"),
    (r"\bcounts\(|\bcheck_ranks\(|\b_counts?\(", "whole counts >= 1"),
    (
        r"\bmagnitude_in\(|\bparse_quantity\(|\bcheck_dimension\(|\bparse_count\(",
        "units of the right dimension",
    ),
    (
        r"\bas_model\(|\bas_accelerator\(|\bsystem\(|\.resolve\(|\bimplementation_of\(|"
        r"\bresolve_system\(|\bresolve_grid\(|\bcatalog\.\w+\(|\bcollective_name\(",
        "names against the catalog (unknown: the closest names)",
    ),
    (
        r"\bcheck_model\(|\bcheck_layout\(|\bchunk_layer_counts\(|\bchunk_layers\(",
        "the layout against the model (layers, heads, experts, sequence)",
    ),
    (r"\bcheck_finetuning\(|\bconfig_for_model\(", "fine-tuning and sequence against the model"),
    (
        r"\bread_input_text\(|\bread_input_bytes\(|\bload_spec\(|\bread_results_csv\(|"
        r"\bload_trace_json\(",
        "input files (regular file, size cap, UTF-8, schema)",
    ),
    (r"\bwrite_output\(|\bcheck_output\(|\bmake_output_folder\(", "outputs (the output rule)"),
    (
        r"\braise (MlcostError|UnknownNameError|SpecError|UnitError|AmbiguousNameError|"
        r"OutputError|DoesNotFitError)",
        "its own checks (one-line MlcostError)",
    ),
    (r"\bcheck_\w+\(|\b_check\w*\(|\b_checked\(", "its own checks (one-line MlcostError)"),
)


def public_modules() -> list[str]:
    """``mlcost`` and every importable module below it with an ``__all__``, except the
    command line (checked by the bad-input suite) and the bench (needs PyTorch)."""
    import mlcost

    names = ["mlcost"]
    for info in pkgutil.walk_packages(mlcost.__path__, "mlcost."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts) or parts[1] in ("cli", "bench"):
            continue
        names.append(info.name)
    return sorted(names)


def _public(module_name: str) -> list[tuple[str, Any]]:
    module = importlib.import_module(module_name)
    names = list(getattr(module, "_LAZY", {})) if module_name == "mlcost" else None
    names = names or list(getattr(module, "__all__", []))
    found = []
    for name in names:
        obj = getattr(module, name, None)
        ours = getattr(obj, "__module__", "").startswith("mlcost")
        if callable(obj) and (ours or module_name == "mlcost"):
            found.append((name, obj))
    return found


def _source(obj: Any) -> str:
    try:
        return inspect.getsource(obj)
    except (OSError, TypeError):
        return ""


def _own_checks(function: Any) -> list[str]:
    source = _source(function)
    body = source.split('"""', 2)[-1] if source.count('"""') >= 2 else source
    return [words for pattern, words in CHECKS if re.search(pattern, body)]


def _callees(function: Any) -> list[Any]:
    """mlcost functions ``function`` calls by name (its module's globals), in order."""
    source = _source(function)
    body = source.split('"""', 2)[-1] if source.count('"""') >= 2 else source
    seen: dict[str, Any] = {}
    for name in re.findall(r"\b([A-Za-z_]\w*)\(", body):
        target = getattr(function, "__globals__", {}).get(name)
        if (
            inspect.isfunction(target)
            and target is not function
            and getattr(target, "__module__", "").startswith("mlcost")
        ):
            seen.setdefault(name, target)
    return list(seen.values())


def _function_checks(function: Any) -> str:
    found = _own_checks(function)
    if found:
        return "; ".join(dict.fromkeys(found))
    for callee in _callees(function):  # a thin wrapper: what the function it calls checks
        delegated = _own_checks(callee)
        if delegated:
            return f"via `{callee.__name__}`: " + "; ".join(dict.fromkeys(delegated))
    if function.__name__.endswith("_seconds"):
        return "none: a kernel on plain SI numbers; its *_time function checks"
    return "-"


def checks_of(obj: Any) -> str:
    """What ``obj`` checks, from its own source (a class: its validators; a thin wrapper: what
    the mlcost function it calls checks)."""
    if not getattr(obj, "__module__", "").startswith("mlcost"):
        return "pint's own parsing and dimensions (the one registry of mlcost.units)"
    if inspect.isclass(obj):
        from pydantic import BaseModel

        if issubclass(obj, BaseException):
            return "(an error class)"
        if issubclass(obj, BaseModel):
            return "every field: types, bounds and cross-field rules (pydantic validators)"
        source = _source(obj)
        found = [words for pattern, words in CHECKS if re.search(pattern, source)]
        if "__post_init__" in source or "_check" in source:
            found.insert(0, "its inputs when built (__post_init__)")
        return "; ".join(dict.fromkeys(found)) or "-"
    if not inspect.isfunction(obj):
        return "-"
    return _function_checks(obj)


def table() -> str:
    lines = [
        "# What each public function validates",
        "",
        "Generated by `python scripts/validation_table.py` from each function's own source "
        "(`tests/test_validation_table.py` checks it lists every public name). Every public "
        "function and class of `mlcost.__all__` and of the public modules' `__all__`; the "
        "command line is covered by the bad-input suite (`tests/badinput/`). A function "
        "marked `-` checks nothing itself: it is a formula on values already checked by its "
        "caller (the public entry points above it: `Plan`, `ServePlan`, `memory_breakdown`, "
        "`step_time`, `search`, ...), or it reads records whose own validators ran. The "
        "checkers are `mlcost.checks` (`argument`, `finite`, `counts`, `quantity`), the unit "
        "guard `mlcost.units.magnitude_in`, the catalog resolvers, `Layout.check_model`, "
        "`mlcost.finetune.check_finetuning` and `mlcost.io` (inputs and the output rule); "
        "every refusal is one line naming the field, the value, what was expected and what to "
        'do (README, "Errors").',
        "",
    ]
    for module_name in public_modules():
        rows = _public(module_name)
        if not rows:
            continue
        lines += [f"## `{module_name}`", "", "| name | validates |", "|---|---|"]
        for name, obj in rows:
            lines.append(f"| `{name}` | {checks_of(obj)} |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    text = table()
    if "--check" in sys.argv[1:]:
        if not TABLE.is_file() or TABLE.read_text() != text:
            print(f"{TABLE} is out of date; run python scripts/validation_table.py")
            sys.exit(1)
        return
    TABLE.write_text(text)
    print(f"wrote {TABLE}")


if __name__ == "__main__":
    main()
