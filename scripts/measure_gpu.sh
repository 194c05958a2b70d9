#!/usr/bin/env bash
# Measure a GPU end to end in one command (issue 19), so GPU time goes to measuring.
#
#   bash scripts/measure_gpu.sh prepare            # on a machine with PyPI: wheels into wheels/
#   OUT=/some/folder bash scripts/measure_gpu.sh run [--device cuda] [--preset full]
#
# `prepare` downloads, as wheels, what a typical CUDA image lacks (pint, pydantic and their
# dependencies; PyTorch, numpy, pandas, matplotlib, typer and rich are expected there) and builds
# mlcost's own wheel. `run` installs them offline (--no-index), records the machine (nvidia-smi,
# driver, clocks, torch and CUDA versions), samples GPU power through nvidia-smi every second in
# the background, runs `mlcost bench`, fits the profile with `mlcost calibrate`, prints the
# before/after table of `mlcost validate`, and writes everything under $OUT. A dry run on a CPU:
#   OUT=/tmp/gpu-dry bash scripts/measure_gpu.sh run --device cpu --preset quick
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-run}"
shift || true
WHEELS="${WHEELS:-wheels}"

if [[ "$mode" == "prepare" ]]; then
    mkdir -p "$WHEELS"
    python3 -m pip download --quiet --dest "$WHEELS" --only-binary=:all: \
        "pint>=0.23" "pydantic>=2.5,<3" pyyaml
    python3 -m pip wheel --quiet --no-deps --wheel-dir "$WHEELS" .
    ls "$WHEELS"
    exit 0
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
mkdir -p "$OUT"
PY="${PYTHON:-python3}"
if ! "$PY" -c "import mlcost" 2>/dev/null; then
    if [[ -d "$WHEELS" ]]; then
        "$PY" -m pip install --quiet --no-index --find-links "$WHEELS" mlcost
    else
        "$PY" -m pip install --quiet .
    fi
fi
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(hostname)"
    "$PY" -c "import torch, sys; print('python:', sys.version.split()[0]); print('torch:', torch.__version__); print('cuda:', torch.version.cuda); print('gpu:', torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'none')"
    if command -v nvidia-smi >/dev/null; then
        nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit,power.default_limit,memory.total --format=csv
    fi
} > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

sampler=""
if command -v nvidia-smi >/dev/null && [[ "$device" == cuda* ]]; then
    nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,utilization.gpu,temperature.gpu \
        --format=csv -l 1 > "$OUT/power.csv" &
    sampler=$!
    trap '[[ -n "$sampler" ]] && kill "$sampler" 2>/dev/null || true' EXIT
    sleep 10  # idle power before the measurements start
fi
flag="--quick"
[[ "$preset" == "full" ]] && flag="--full"
"$PY" -m mlcost.cli bench --device "$device" "$flag" --out "$OUT/bench" 2>&1 | tee "$OUT/bench.log"
base=()
if [[ "$device" == cuda* ]]; then
    case "$("$PY" -c 'import torch; print(torch.cuda.get_device_name(0))')" in
        *H100*) base=(--base h100-sxm5-80gb) ;;
        *H200*) base=(--base h200-sxm-141gb) ;;
        *A100*) base=(--base a100-sxm4-80gb) ;;
    esac
fi
"$PY" -m mlcost.cli calibrate "$OUT/bench" "${base[@]}" --out "$OUT/profile.yaml" --force \
    2>&1 | tee "$OUT/calibrate.log"
"$PY" -m mlcost.cli validate "$OUT/bench" --profile "$OUT/profile.yaml" "${base[@]}" \
    --plot "$OUT/validate.png" 2>&1 | tee "$OUT/validate.log"
"$PY" -m mlcost.cli validate "$OUT/bench" --profile "$OUT/profile.yaml" "${base[@]}" --json \
    > "$OUT/validate.json"
echo "results in $OUT"
ls -la "$OUT"
