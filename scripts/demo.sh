#!/usr/bin/env bash
# The main job on its built-in defaults: install mlcost and summarize the default model on the
# default GPU (Llama-2-7B on an H100 SXM5 80GB), every number with its unit and source.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet -e .
.venv/bin/mlcost summary
