"""``mlcost flops`` and ``mlcost ops``."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import Cli


def test_flops_json_reproduces_the_chapter_inputs(cli: Cli) -> None:
    result = cli(
        "flops", "gpt2-xl", "--batch", "32", "--seq", "1024", "--attention", "eager", "--json"
    )
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    rows = {row["quantity"]: row for row in data["rows"]}
    # 3·48·(22·B·s·h^2 + 4·B·s^2·h) = 296,674,865,971,200 (the chapter's step total, W-02).
    chapter = rows["chapter 3·L·(22·B·s·h^2 + 4·B·s^2·h)"]["flops"]
    assert chapter == {"value": 296_674_865_971_200, "unit": "FLOP"}
    assert data["tokens_per_step"] == {"value": 32768, "unit": "token"}


def test_ops_csv_is_written(cli: Cli, tmp_path: Path) -> None:
    target = tmp_path / "ops.csv"
    result = cli("ops", "llama-2-7b", "--batch", "1", "--seq", "512", "--csv", str(target))
    assert result.exit_code == 0, result.stderr
    header = target.read_text().splitlines()[0].split(",")
    assert header[:4] == ["name", "kind", "block", "count"]
    assert not list(tmp_path.glob(".ops.csv.*"))


def test_flops_bad_option_is_one_line(cli: Cli) -> None:
    result = cli("flops", "gpt2", "--recompute", "sometimes")
    assert result.exit_code == 2
    assert "recompute" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
