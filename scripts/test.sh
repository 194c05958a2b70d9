#!/usr/bin/env bash
# The whole test suite on a fresh machine: a virtual environment, the package with its dev extra
# (torch pinned to the CPU build 2.13.0 in pyproject.toml), then pytest, ruff and mypy. pytest runs
# one worker per CPU (pytest-xdist), each test file on one worker, so a file's fixtures (the CPU
# calibration, the runtime-only environment) are built once.
set -euo pipefail
cd "$(dirname "$0")/.."
# The browser the ui tests drive (tests/ui): Debian's Chromium and its driver, when missing.
{ command -v chromium && command -v chromedriver; } >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium chromium-driver; }
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --progress-bar on -e '.[dev]'
MLCOST_REQUIRE_BROWSER=1 .venv/bin/python -m pytest -n logical --dist loadfile
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
