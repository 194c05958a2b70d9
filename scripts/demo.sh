#!/usr/bin/env bash
# The main job on its built-in defaults: install mlcost and plan a run - Llama-2-7B on one DGX H100
# (8x H100 SXM5 80GB), 2T tokens, US grid, the fastest layout that fits - printing the summary
# table (layout, memory, time, GPU-hours, MFU, energy, dollars, CO2e) and writing a roofline and a
# memory plot into plots/ (--force: a second run replaces the plots of the first; without it an
# existing file is never replaced).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet -e .
.venv/bin/mlcost plan --plot plots --force
