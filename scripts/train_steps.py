"""Measure real training steps on a CUDA GPU (issue 19, item 4): step time, peak memory and
energy of bf16 autocast training with AdamW, with and without full activation recomputation.

Run by ``scripts/measure_gpu.sh``; on its own::

    python scripts/train_steps.py --out results.json [--device cuda] [--quick]

Models (built from config dicts, nothing downloaded):

* ``bench-gpt-124m``: mlcost's own reference GPT (:mod:`mlcost.bench.model`, nanoGPT-shaped),
  GPT-2 124M sizes with the vocabulary padded to 50,304 as nanoGPT does;
* ``gpt2``: Hugging Face ``GPT2LMHeadModel`` (the catalog's GPT-2 124M) without dropout;
* ``llama-1b``: Hugging Face ``LlamaForCausalLM`` in Llama 3.2 1B's shape (``meta-llama/
  Llama-3.2-1B`` config.json: hidden 2048, 16 layers, 32 heads, 8 KV heads, FFN 8192,
  vocabulary 128,256, tied embeddings).

Per configuration: FP32 parameters, ``torch.autocast(bfloat16)``, ``scaled_dot_product_attention``
(PyTorch picks its backend), ``torch.optim.AdamW`` (its default foreach path),
``zero_grad(set_to_none=True)``. Three warm-up steps, then at least ``--steps`` timed steps and at
least ``--seconds`` of them (CUDA events per step). Memory: ``torch.cuda.memory_allocated`` after
building the model and after the warm-up (parameters + optimizer states), and
``torch.cuda.max_memory_allocated`` over the timed steps (reset after the warm-up). Energy: the
NVML total-energy counter (``nvmlDeviceGetTotalEnergyConsumption``, millijoules) read before and
after the timed steps, when ``pynvml`` is importable; idle power over ``--idle`` seconds first.
A configuration that runs out of memory is retried with half the micro-batch.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mlcost.bench.timer import time_callable

GPT2_CONFIG = {
    "model_type": "gpt2",
    "vocab_size": 50257,
    "n_positions": 1024,
    "n_embd": 768,
    "n_layer": 12,
    "n_head": 12,
    "activation_function": "gelu_new",
    "resid_pdrop": 0.0,
    "embd_pdrop": 0.0,
    "attn_pdrop": 0.0,
}
LLAMA_1B_CONFIG = {
    "model_type": "llama",
    "vocab_size": 128256,
    "hidden_size": 2048,
    "intermediate_size": 8192,
    "num_hidden_layers": 16,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "max_position_embeddings": 131072,
    "hidden_act": "silu",
    "rope_theta": 500000.0,
    "tie_word_embeddings": True,
}
BENCH_GPT_124M = {
    "vocab_size": 50304,
    "sequence_length": 1024,
    "layers": 12,
    "hidden": 768,
    "heads": 12,
}

#: name -> (kind, config, sequence length, micro-batch sizes): two micro-batch sizes give the
#: activation bytes per sequence as a difference, free of everything that does not scale with it.
MODELS: dict[str, tuple[str, dict[str, Any], int, tuple[int, ...]]] = {
    "bench-gpt-124m": ("bench", BENCH_GPT_124M, 1024, (16,)),
    "gpt2": ("hf", GPT2_CONFIG, 1024, (8, 16)),
    "llama-1b": ("hf", LLAMA_1B_CONFIG, 2048, (2, 4)),
}
QUICK: dict[str, tuple[str, dict[str, Any], int, tuple[int, ...]]] = {
    "bench-gpt-124m": (
        "bench",
        {**BENCH_GPT_124M, "layers": 2, "hidden": 128, "heads": 4},
        128,
        (2,),
    ),
    "gpt2": ("hf", {**GPT2_CONFIG, "n_embd": 128, "n_layer": 2, "n_head": 4}, 128, (1, 2)),
    "llama-1b": (
        "hf",
        {
            **LLAMA_1B_CONFIG,
            "hidden_size": 128,
            "intermediate_size": 256,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "num_key_value_heads": 2,
            "vocab_size": 1000,
        },
        128,
        (2,),
    ),
}


class Energy:
    """The NVML energy counter and power reading of GPU 0 (``None`` readings without NVML)."""

    def __init__(self) -> None:
        self.handle: Any = None
        try:
            import pynvml

            pynvml.nvmlInit()
            self.nvml = pynvml
            self.handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        except Exception as error:
            print(f"NVML unavailable: {error}", flush=True)

    def millijoules(self) -> float | None:
        if self.handle is None:
            return None
        try:
            return float(self.nvml.nvmlDeviceGetTotalEnergyConsumption(self.handle))
        except Exception:
            return None

    def clocks(self) -> dict[str, Any]:
        if self.handle is None:
            return {}
        nvml, handle = self.nvml, self.handle
        out: dict[str, Any] = {}
        for key, call in (
            ("sm_clock_mhz", lambda: nvml.nvmlDeviceGetClockInfo(handle, nvml.NVML_CLOCK_SM)),
            ("mem_clock_mhz", lambda: nvml.nvmlDeviceGetClockInfo(handle, nvml.NVML_CLOCK_MEM)),
            ("power_w", lambda: nvml.nvmlDeviceGetPowerUsage(handle) / 1e3),
            ("temperature_c", lambda: nvml.nvmlDeviceGetTemperature(handle, 0)),
            ("power_limit_w", lambda: nvml.nvmlDeviceGetEnforcedPowerLimit(handle) / 1e3),
        ):
            try:
                out[key] = call()
            except Exception:
                out[key] = None
        return out


def build(kind: str, config: dict[str, Any], recompute: bool, device: str) -> torch.nn.Module:
    if kind == "bench":
        from mlcost.bench.model import GPT, GPTConfig

        with torch.device(device):
            model: torch.nn.Module = GPT(GPTConfig(**config), checkpoint=recompute)
    else:
        import transformers

        config_class, model_class = {
            "gpt2": ("GPT2Config", "GPT2LMHeadModel"),
            "llama": ("LlamaConfig", "LlamaForCausalLM"),
        }[config["model_type"]]
        hf_config = getattr(transformers, config_class)(
            **{k: v for k, v in config.items() if k != "model_type"}
        )
        hf_config._attn_implementation = "sdpa"
        with torch.device(device):
            hf_model = getattr(transformers, model_class)(hf_config)
        if recompute:
            hf_model.gradient_checkpointing_enable(
                gradient_checkpointing_kwargs={"use_reentrant": False}
            )
        model = hf_model
    return model.to(device).train()


def loss_of(kind: str, model: torch.nn.Module, ids: torch.Tensor) -> torch.Tensor:
    """The step's loss: next-token targets for mlcost's bench GPT (against its own inputs its
    tied head scores a loss of 0.0 and the gradients vanish: mlcost.bench.model.GPT.forward),
    the Hugging Face models' own shifted labels."""
    if kind == "bench":
        return model(ids, torch.roll(ids, -1, dims=1))
    return model(input_ids=ids, labels=ids).loss


@dataclass
class Setup:
    """A model on the device with its AdamW, a batch of token ids, and one training step."""

    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    ids: torch.Tensor
    kind: str

    def forward(self) -> torch.Tensor:
        """The loss under BF16 autocast."""
        device_type = "cuda" if self.ids.is_cuda else "cpu"
        with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
            return loss_of(self.kind, self.model, self.ids)

    def step(self) -> None:
        """Forward, backward, ``optimizer.step()``, ``zero_grad(set_to_none=True)``."""
        self.forward().backward()
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)


def setup(
    kind: str, config: dict[str, Any], seq: int, batch: int, recompute: bool, device: str
) -> Setup:
    """Seed 0, the model (FP32 parameters) on ``device``, ``torch.optim.AdamW`` (lr 1e-4, its
    default foreach path) and ``batch x seq`` random token ids."""
    torch.manual_seed(0)
    model = build(kind, config, recompute, device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ids = torch.randint(0, int(config["vocab_size"]), (batch, seq), device=device)
    return Setup(model, optimizer, ids, kind)


def measure(
    name: str,
    kind: str,
    config: dict[str, Any],
    seq: int,
    batch: int,
    recompute: bool,
    args: argparse.Namespace,
    energy: Energy,
) -> dict[str, Any]:
    device = args.device
    cuda = device.startswith("cuda")
    if cuda:
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    run = setup(kind, config, seq, batch, recompute, device)
    parameters = sum(p.numel() for p in run.model.parameters())
    # after the model, the ids and (lazily, at the first step) no optimizer state yet
    after_build = torch.cuda.memory_allocated() if cuda else None
    for _ in range(3):
        run.step()
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    steady = torch.cuda.memory_allocated() if cuda else None
    samples: list[float] = []
    started = time.time()
    before = energy.millijoules()
    clocks: list[dict[str, Any]] = []
    while len(samples) < args.steps or sum(samples) < args.seconds:
        samples += time_callable(run.step, device=device, warmup=0, repeats=1).samples
        if len(samples) % 5 == 0:
            clocks.append(energy.clocks())
        if len(samples) >= 2000:
            break
    after = energy.millijoules()
    ended = time.time()
    samples_sorted = sorted(samples)
    row: dict[str, Any] = {
        "name": name,
        "kind": kind,
        "config": config,
        "sequence_length": seq,
        "micro_batch_size": batch,
        "recompute": "full" if recompute else "none",
        "precision": "bf16-autocast, fp32 parameters",
        "optimizer": "torch.optim.AdamW (foreach)",
        "parameters": parameters,
        "steps": len(samples),
        "step_median_s": samples_sorted[len(samples) // 2],
        "step_mean_s": sum(samples) / len(samples),
        "step_min_s": samples_sorted[0],
        "step_max_s": samples_sorted[-1],
        "samples_s": samples,
        "wall_start": started,
        "wall_end": ended,
        "allocated_after_build_bytes": after_build,
        "allocated_steady_bytes": steady,
        "peak_allocated_bytes": torch.cuda.max_memory_allocated() if cuda else None,
        "peak_reserved_bytes": torch.cuda.max_memory_reserved() if cuda else None,
        "energy_j": (after - before) / 1e3 if after is not None and before is not None else None,
        "clocks": clocks,
    }
    if row["energy_j"] is not None:
        row["energy_per_step_j"] = row["energy_j"] / len(samples)
        row["mean_power_w"] = row["energy_j"] / sum(samples)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--idle", type=float, default=10.0)
    parser.add_argument("--quick", action="store_true", help="tiny models (a CPU dry run)")
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    models = QUICK if args.quick else MODELS
    if args.device.startswith("cuda"):
        torch.backends.cuda.matmul.allow_tf32 = False
    energy = Energy()
    out = Path(args.out)
    report: dict[str, Any] = {
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none",
        "transformers": _version("transformers"),
        "rows": [],
    }
    before = energy.millijoules()
    t0 = time.time()
    time.sleep(args.idle)
    after = energy.millijoules()
    report["idle"] = {
        "seconds": time.time() - t0,
        "energy_j": (after - before) / 1e3 if after is not None and before is not None else None,
        "clocks": energy.clocks(),
    }
    if report["idle"]["energy_j"] is not None:
        report["idle"]["mean_power_w"] = report["idle"]["energy_j"] / report["idle"]["seconds"]
    print("idle:", report["idle"], flush=True)
    for name in args.models.split(","):
        kind, config, seq, batches = models[name]
        for batch, recompute in ((b, r) for b in batches for r in (False, True)):
            while batch >= 1:
                try:
                    row = measure(name, kind, config, seq, batch, recompute, args, energy)
                    break
                except torch.OutOfMemoryError as error:
                    print(f"{name} mb {batch}: out of memory ({str(error)[:120]})", flush=True)
                    report["rows"].append(
                        {
                            "name": name,
                            "micro_batch_size": batch,
                            "status": "oom",
                            "recompute": "full" if recompute else "none",
                        }
                    )
                    torch.cuda.empty_cache()
                    batch //= 2
            else:
                continue
            printable = {k: v for k, v in row.items() if k not in ("samples_s", "clocks", "config")}
            print(json.dumps(printable), flush=True)
            report["rows"].append(row)
            tmp = out.with_suffix(".tmp")
            tmp.write_text(json.dumps(report, indent=1))
            os.replace(tmp, out)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(report, indent=1))
    os.replace(tmp, out)
    return 0


def _version(package: str) -> str | None:
    try:
        import importlib.metadata

        return importlib.metadata.version(package)
    except Exception:
        return None


if __name__ == "__main__":
    raise SystemExit(main())
