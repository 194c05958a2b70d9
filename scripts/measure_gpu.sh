#!/usr/bin/env bash
# Measure a GPU end to end in one command (issue 19), so GPU time goes to measuring.
#
#   bash scripts/measure_gpu.sh prepare [PYTHON_VERSION]   # where PyPI is reachable: wheels/
#   OUT=/some/folder bash scripts/measure_gpu.sh run [--device cuda] [--preset full]
#
# `prepare` downloads, as wheels for the GPU machine's Python (3.12 by default, manylinux x86-64),
# what a typical CUDA image lacks: pint and pydantic with their dependencies (PyTorch, numpy,
# pandas, matplotlib, typer, rich, PyYAML, transformers and nvidia-ml-py are expected there).
# `run` installs them offline into a private folder, runs mlcost from this checkout, records the
# machine (nvidia-smi, driver, clocks, torch and CUDA versions), samples power, SM clock and
# utilization through nvidia-smi every 100 ms in the background, then
#   1. scripts/train_steps.py: real bf16-autocast AdamW training steps (step time, peak memory,
#      NVML energy; idle power first),
#   2. `mlcost bench` (GEMMs, attention backends, STREAM, kernels, optimizer, transfers, launch),
#   3. `mlcost calibrate` and `mlcost validate` on the results (seconds, CPU work),
# each under its own time limit, and packs everything into $OUT/results.tar.gz (plus run.log).
# A dry run on a CPU:
#   OUT=/tmp/gpu-dry bash scripts/measure_gpu.sh run --device cpu --preset quick
#
#   OUT=/some/folder bash scripts/measure_gpu.sh serve-train [--device cuda] [--preset full]
#
# `serve-train` (issues 67 and 68), within about 8 minutes: scripts/profile_training.py (profiled
# GPT-3 125M/350M/1.3B training steps, traces gzipped) then scripts/measure_serving.py (prefill and
# decode of Llama 3.2 1B/3B and Llama 3 8B shapes) with the same machine record and sampler. It
# leaves eight files in $OUT: run.log, machine.txt, power.csv, training.json, serving.json and one
# tar of traces per model (the device tool returns at most eight files of 16 MiB).
set -uo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
mode="${1:-run}"
shift || true
WHEELS="${WHEELS:-wheels}"

if [[ "$mode" == "prepare" ]]; then
    version="${1:-3.12}"
    mkdir -p "$WHEELS"
    python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$WHEELS" \
        --python-version "$version" --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux2014_x86_64 \
        "pint==0.25.3" "flexcache==0.3" "flexparser==0.4" "platformdirs==4.14.8" \
        "pydantic==2.14.4" "pydantic_core==2.50.5" "annotated-types==0.8.0" \
        "typing-inspection==0.4.5" "typing_extensions==4.16.0" || exit 1
    ls "$WHEELS"
    exit 0
fi

if [[ "$mode" != "run" && "$mode" != "serve-train" ]]; then
    echo "error: unknown mode '$mode' (expected prepare, run or serve-train)" >&2
    exit 2
fi
device="cuda"
preset="full"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --device) device="$2"; shift 2 ;;
        --preset) preset="$2"; shift 2 ;;
        *) echo "error: unknown option $1 (expected --device, --preset)" >&2; exit 2 ;;
    esac
done
OUT="${OUT:?set OUT to the folder results go to}"
PY="${PYTHON:-python3}"
if [[ "$mode" == "serve-train" ]]; then
    R="$OUT"
else
    R="$OUT/results"
fi
mkdir -p "$R"
exec > >(tee "$OUT/run.log") 2>&1
if ! "$PY" -c "import pint, pydantic" 2>/dev/null; then
    site="${SITE:-/tmp/mlcost-site}"
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target "$site" "$WHEELS"/*.whl || exit 1
    export PYTHONPATH="$site:${PYTHONPATH:-}"
fi
export PYTHONPATH="$repo:${PYTHONPATH:-}" PYTHONUNBUFFERED=1
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(hostname)"
    "$PY" -c "import torch, sys; print('python:', sys.version.split()[0]); print('torch:', torch.__version__); print('cuda:', torch.version.cuda); print('gpu:', torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'none'); print('cudnn:', torch.backends.cudnn.version())"
    "$PY" -c "import transformers; print('transformers:', transformers.__version__)" || true
    if command -v nvidia-smi >/dev/null; then
        nvidia-smi
        nvidia-smi -q -d CLOCK,POWER,PERFORMANCE || true
        nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit,power.default_limit,memory.total,pcie.link.gen.max,pcie.link.width.max --format=csv
    fi
} > "$R/machine.txt" 2>&1
cat "$R/machine.txt"

sampler=""
if command -v nvidia-smi >/dev/null && [[ "$device" == cuda* ]]; then
    nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,clocks.mem,utilization.gpu,temperature.gpu,memory.used \
        --format=csv -lms 100 > "$R/power.csv" &
    sampler=$!
    trap '[[ -n "$sampler" ]] && kill "$sampler" 2>/dev/null || true' EXIT
fi

if [[ "$mode" == "serve-train" ]]; then
    began=$(date +%s)
    quick=()
    serve_quick=()
    if [[ "$preset" == "quick" ]]; then
        quick=(--quick --steps 2)
        serve_quick=(--dry --point-seconds 0.01)
    fi
    traces="${TRACES:-/tmp/mlcost-traces}"
    rm -rf "$traces"
    echo "== profiled training steps $(date -u +%T)"
    timeout "${TRAIN_LIMIT:-200}" "$PY" scripts/profile_training.py --device "$device" \
        --out "$R/training.json" --traces "$traces" --seconds "${TRAIN_SECONDS:-150}" "${quick[@]}" \
        || echo "profile_training ended with status $?"
    for model in gpt3-125m gpt3-350m gpt3-1.3b; do
        ls "$traces"/"$model"_* >/dev/null 2>&1 && tar -cf "$R/traces-$model.tar" -C "$traces" \
            $(cd "$traces" && ls "$model"_*)
    done
    left=$(( ${TOTAL_SECONDS:-470} - $(date +%s) + began ))
    echo "== serving, ${left} s left $(date -u +%T)"
    timeout $(( left + 60 )) "$PY" scripts/measure_serving.py --device "$device" \
        --out "$R/serving.json" --seconds "$(( left > 30 ? left - 30 : 1 ))" "${serve_quick[@]}" \
        || echo "measure_serving ended with status $?"
    [[ -n "$sampler" ]] && kill "$sampler" 2>/dev/null
    sampler=""
    echo "== done $(date -u +%T)"
    ls -la "$OUT"
    exit 0
fi

quick=()
[[ "$preset" == "quick" ]] && quick=(--quick --steps 2 --seconds 0 --idle 1)
echo "== training steps $(date -u +%T)"
timeout "${TRAIN_LIMIT:-200}" "$PY" scripts/train_steps.py --device "$device" \
    --out "$R/train_steps.json" "${quick[@]}" || echo "train_steps ended with status $?"
echo "== bench $(date -u +%T)"
flag="--quick"
[[ "$preset" == "full" ]] && flag="--full"
# The families that calibration needs most run first, so a run cut by its limit keeps them.
only=()
for family in launch memory kernels attention optimizer gemm bmm e2e transfer; do
    only+=(--only "$family")
done
timeout "${BENCH_LIMIT:-300}" "$PY" -m mlcost.cli bench --device "$device" "$flag" \
    "${only[@]}" --out-dir "$R/bench" || echo "bench ended with status $?"
echo "== calibrate $(date -u +%T)"
base=()
if [[ "$device" == cuda* ]]; then
    case "$("$PY" -c 'import torch; print(torch.cuda.get_device_name(0))')" in
        *H100*) base=(--base h100-sxm5-80gb) ;;
        *H200*) base=(--base h200-sxm-141gb) ;;
        *A100*) base=(--base a100-sxm4-80gb) ;;
    esac
fi
"$PY" -m mlcost.cli calibrate "$R/bench" "${base[@]}" --out "$R/profile.yaml" --force \
    || echo "calibrate ended with status $?"
"$PY" -m mlcost.cli validate "$R/bench" --profile "$R/profile.yaml" "${base[@]}" \
    || echo "validate ended with status $?"
[[ -n "$sampler" ]] && kill "$sampler" 2>/dev/null
sampler=""
echo "== done $(date -u +%T)"
tar -czf "$OUT/results.tar.gz" -C "$OUT" results
ls -la "$R" "$OUT"
