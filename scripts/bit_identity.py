"""Bit-identity of mlcost's answers across a change: write every answer of a fixed set of
questions to a pickle, then compare two pickles (before and after).

    python scripts/bit_identity.py write before.pkl     # on the old checkout
    python scripts/bit_identity.py write after.pkl      # on the new one
    python scripts/bit_identity.py compare before.pkl after.pkl

The questions: the multi-GPU step (total, exposed communication and its whole JSON) and
``Plan.train()``'s JSON for 8 models x BF16/FP8 x 4 implementations x 5 layouts;
``Plan.train()`` with the layout searched (8 and 64 GPUs), a micro-batch sweep of the one-GPU
step and a memory breakdown per model and format; and a layout search (the layouts that fit,
and every one).
An error of mlcost's own (a layout that does not fit) is an answer too: its text is compared.
Any other exception stops the run: as text, the same error before and after would compare
equal. A refactoring that claims to change no number must compare equal here; the test suite
checks values against outside oracles, this checks that nothing moved at all. It runs in about
20 s.
"""

from __future__ import annotations

import json
import pickle
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np

MODELS = (
    "gpt2",
    "llama-2-7b",
    "llama-2-70b",
    "mixtral-8x7b",
    "gemma-2-9b",
    "llama-3.1-405b",
    "qwen1.5-moe-a2.7b",
    "deepseek-v3",
)
IMPLEMENTATIONS = (None, "megatron-core", "fsdp", "ddp-eager")


def _numbers(value: Any) -> Any:
    return np.asarray(getattr(value, "magnitude", value)).tolist()


def _is_error(answer: Any) -> bool:
    """Whether ``answer`` is an error's text as ``record`` writes it: ``"<ClassName>Error: ..."``
    (no other answer is a string that starts with an identifier and a colon)."""
    name, colon, _ = answer.partition(": ") if isinstance(answer, str) else ("", "", "")
    return bool(colon) and name.isidentifier() and name.endswith("Error")


def _json(result: Any) -> str:
    """A result's JSON as text (its whole answer: every figure, formula and source)."""
    return json.dumps(result.to_json(), sort_keys=True, default=str)


def answers() -> dict[Any, Any]:
    """Every answer, keyed by its question."""
    from mlcost import Layout, Plan, TrainingConfig
    from mlcost.errors import MlcostError
    from mlcost.memory import memory_breakdown
    from mlcost.parallel import multi_gpu_step_time, search
    from mlcost.timing import step_time

    layouts = (
        Layout(dp=8, zero_stage=1, micro_batch_size=1, global_batch_size=1024),
        Layout(tp=8, micro_batch_size=2, global_batch_size=256),
        Layout(tp=4, pp=2, dp=2, micro_batch_size=1, global_batch_size=64, zero_stage=2),
        Layout(dp=16, zero_stage=3, micro_batch_size=1, global_batch_size=512),
        Layout(tp=2, pp=4, dp=4, micro_batch_size=1, global_batch_size=512, sequence_parallel=True),
    )
    out: dict[Any, Any] = {}

    def record(key: Any, answer: Any, *args: Any) -> None:
        try:
            out[key] = answer(*args)
        except MlcostError as error:  # mlcost's own answer (does not fit, ...): its text
            out[key] = f"{type(error).__name__}: {error}"
        # Anything else (a TypeError from a call that no longer matches the API) stops the
        # run: compared as text, the same error before and after would pass as "no change".

    def step(model: str, config: Any, layout: Any, software: str | None) -> Any:
        r = multi_gpu_step_time(model, config, "dgx-h100", layout, implementation=software)
        return [_numbers(r.total), _numbers(r.exposed_communication), _json(r)]

    def train(model: str, config: Any, layout: Any, software: str | None) -> Any:
        plan = Plan(
            model, system="dgx-h100", gpus=layout.gpus, layout=layout, config=config,
            tokens=1e11, implementation=software,
        )  # fmt: skip
        return _json(plan.train())

    def searched(model: str, config: Any, gpus: int) -> Any:  # the layout searched
        plan = Plan(model, system="dgx-h100", gpus=gpus, config=config, tokens=1e11)
        return [plan.run.layout_source, _json(plan.train())]

    def sweep(model: str, config: Any) -> Any:
        sizes = np.array([1, 2, 4])
        return _numbers(step_time(model, config, "h100-sxm5-80gb", micro_batch_size=sizes).total)

    def memory(model: str, config: Any) -> Any:
        return _json(memory_breakdown(model, config, "h100-sxm5-80gb", layouts[0]))

    def layouts_found() -> Any:
        config = TrainingConfig(sequence_length=4096)
        found = search("llama-2-7b", "dgx-h100", 512, config=config, gpus=64)
        every = search("llama-2-7b", "dgx-h100", 512, config=config, gpus=64, keep_unfit=True)
        return [found.to_frame().to_csv(), every.to_frame().to_csv()]

    def whole_plan(model: str, config: Any, options: dict[str, Any]) -> Any:
        plan = Plan(model, system="dgx-h100", gpus=8, layout=layouts[0], config=config, **options)
        answers = [_json(plan)]
        if plan.fits:
            answers += [_json(plan.train()), _json(plan.energy()), _json(plan.cost())]
            answers += [_json(plan.carbon()), _json(plan.step_time())]
        return answers

    def swept_plan(model: str, config: Any) -> Any:
        plan = Plan(model, system="dgx-h100", gpus=8, layout=layouts[0], config=config)
        frame = plan.sweep(micro_batch_size=[1, 2], gpus=[8, 16], region=["us", "france"])
        return frame.to_csv()

    def served(model: str) -> Any:
        from mlcost import ServePlan

        return _json(ServePlan(model, gpu="h100-sxm5-80gb", prompt=1024, output=256, batch=8))

    def failures(gpus: int, asynchronous: bool) -> Any:
        from mlcost.checkpointing import goodput_plan
        from mlcost.units import Q_

        return _json(
            goodput_plan(
                Q_(12, "GB"), gpus, write_bandwidth=Q_(50, "GB/s"), asynchronous=asynchronous
            )
        )

    plan_options: tuple[dict[str, Any], ...] = (
        {"tokens": 1e11},
        {"tokens": 1e11, "region": "france"},
        {"tokens": 1e11, "failures": False},
        {"tokens": 1e11, "gpu_hours": 5000.0},
        {"tokens": 1e11, "flop_count": "6ND"},
        {"steps": 1000, "price": "30 USD/hour", "accounting": "gpu-tdp"},
    )
    for model in MODELS:
        config = TrainingConfig(sequence_length=1024)
        for i, extra in enumerate(plan_options):
            record((model, "whole plan", i), whole_plan, model, config, extra)
        record((model, "swept plan"), swept_plan, model, config)
    for model in ("llama-3-8b", "llama-2-70b", "mixtral-8x7b"):
        record((model, "served"), served, model)
    for gpus in (8, 1024, 16384):
        for asynchronous in (False, True):
            record(("failures", gpus, asynchronous), failures, gpus, asynchronous)

    for model in MODELS:
        for precision in ("bf16", "fp8"):
            config = TrainingConfig(sequence_length=2048, precision=precision)
            for software in IMPLEMENTATIONS:
                for i, layout in enumerate(layouts):
                    key = (model, precision, software, i)
                    record((*key, "step"), step, model, config, layout, software)
                    record((*key, "plan"), train, model, config, layout, software)
            for gpus in (8, 64):
                record((model, precision, gpus, "searched"), searched, model, config, gpus)
            record((model, precision, "sweep"), sweep, model, config)
            record((model, precision, "memory"), memory, model, config)
    record("search", layouts_found)
    return out


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "write":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # compute-optimality warnings of some plans
            found = answers()
        Path(argv[1]).write_bytes(pickle.dumps(found))
        errors = sum(_is_error(answer) for answer in found.values())
        print(f"{len(found)} answers ({errors} of them mlcost's errors) written to {argv[1]}")
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        before = pickle.loads(Path(argv[1]).read_bytes())  # files this script wrote
        after = pickle.loads(Path(argv[2]).read_bytes())
        keys = sorted(set(before) | set(after), key=str)
        differ = [k for k in keys if before.get(k) != after.get(k)]
        print(f"{len(keys)} questions, {len(differ)} answers differ")
        for key in differ[:10]:
            print(key, str(before.get(key))[:300], "\n  ->", str(after.get(key))[:300])
        return 1 if differ else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
