#!/usr/bin/env bash
# The main job on its built-in defaults: install mlcost and plan a run - Llama-2-7B on one DGX H100
# (8x H100 SXM5 80GB), 20 tokens per parameter, world grid, the fastest layout that fits -
# printing the short answer (fits?, layout, time, GPU-hours, dollars, energy, CO2e) and writing a
# roofline and a memory plot into plots/ (--force: a second run replaces the plots of the first;
# without it an existing file is never replaced). pip shows its progress (a download is not a
# hang).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --progress-bar on -e .
.venv/bin/mlcost plan --plot-dir plots --force
