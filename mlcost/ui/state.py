"""The page's inputs as one record: parsed from the URL's query string (so a link reproduces the
answer), written back to it, and turned into the equivalent ``mlcost`` command line and Python
snippet. Standard library only: the static report and the tests read it without a web server."""

from __future__ import annotations

import json
import shlex
from dataclasses import asdict, dataclass, fields, replace
from typing import Any
from urllib.parse import urlencode

from mlcost.errors import MlcostError

QUESTIONS = ("train", "serve", "fit")
MODES = ("pretrain", "full", "lora", "qlora")
LAYOUTS = ("search", "manual")
PRECISIONS = ("bf16-mixed", "fp16-mixed", "bf16", "fp8", "fp32")
IMPLEMENTATIONS = ("megatron-core", "fsdp", "ddp-eager", "deepspeed")
ENGINES = ("vllm", "tensorrt-llm", "sglang", "hf-generate")
WEIGHTS = ("bf16", "fp8", "int8", "int4")
RECOMPUTE = ("none", "selective", "full")
#: The GPUs the comparison and the fit question put side by side (any catalog GPU can be chosen).
COMPARED_GPUS = (
    "a100-sxm4-40gb",
    "a100-sxm4-80gb",
    "h100-sxm5-80gb",
    "h200-sxm-141gb",
    "b200-sxm-180gb",
    "mi300x-192gb",
    "l40s",
    "rtx-4090",
)
COMPARED_COUNTS = (1, 8, 64)


@dataclass(frozen=True)
class UiState:
    """Every input of the page, with the page's defaults. ``upload`` and ``profile`` are the
    content hashes of an uploaded model and calibrated profile (held by the running server)."""

    q: str = "train"
    model: str = "llama-3-8b"
    upload: str = ""
    gpu: str = "h100-sxm5-80gb"
    system: str = ""  # a catalog node or cluster; "": the GPU's standard node
    profile: str = ""
    gpus: int = 8
    precision: str = "bf16-mixed"
    seq: int = 4096
    gbs: int = 0  # global batch in sequences; 0: the plan's default
    tokens: float = 1e10
    mode: str = "pretrain"
    rank: int = 16
    region: str = "world"
    price: float = 0.0  # USD per GPU-hour; 0: the catalog's price
    layout: str = "search"
    dp: int = 8
    tp: int = 1
    pp: int = 1
    mbs: int = 1
    zero: int = 1
    recompute: str = "none"
    impl: str = "megatron-core"
    engine: str = "vllm"
    weights: str = "bf16"
    tpsrv: int = 1
    prompt: int = 1024
    output: int = 256
    batch: int = 0  # 0: the largest that meets the latency target
    ttft: float = 0.0  # ms; 0: the engine's default target
    tpot: float = 0.0

    # ----- the URL ------------------------------------------------------------------------------
    @classmethod
    def from_query(cls, query: dict[str, str]) -> UiState:
        """The state a query string describes; a bad value raises a one-line :class:`MlcostError`
        naming the field, the value and what was expected."""
        values: dict[str, Any] = {}
        for spec in fields(cls):
            text = query.get(spec.name)
            if text is None or text == "":
                continue
            default = spec.default
            try:
                if isinstance(default, bool):
                    values[spec.name] = text in ("1", "true", "on")
                elif isinstance(default, int):
                    values[spec.name] = int(float(text))
                elif isinstance(default, float):
                    values[spec.name] = float(text)
                else:
                    values[spec.name] = text.strip()
            except ValueError:
                kind = type(default).__name__
                raise MlcostError(
                    f"{spec.name}: got {text!r}, expected a number ({kind}); e.g. {default}"
                ) from None
        state = cls(**values)
        state.check()
        return state

    def check(self) -> None:
        """One-line errors for choices outside their lists and counts below 1."""
        choices = {
            "q": QUESTIONS,
            "mode": MODES,
            "layout": LAYOUTS,
            "precision": PRECISIONS,
            "recompute": RECOMPUTE,
            "weights": WEIGHTS,
        }
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise MlcostError(
                    f"{name}: got {getattr(self, name)!r}, expected one of {', '.join(allowed)}"
                )
        for name in ("gpus", "seq", "dp", "tp", "pp", "mbs", "tpsrv", "prompt", "output", "rank"):
            if getattr(self, name) < 1:
                raise MlcostError(
                    f"{name}: got {getattr(self, name)}, expected a whole number >= 1"
                )
        if not 0 <= self.zero <= 3:
            raise MlcostError(f"zero: got {self.zero}, expected a ZeRO stage 0, 1, 2 or 3")
        if self.tokens <= 0:
            raise MlcostError(f"tokens: got {self.tokens:g}, expected a number of tokens > 0")

    def changed(self) -> dict[str, Any]:
        """The fields that differ from the defaults (what the URL carries)."""
        default = UiState()
        return {k: v for k, v in asdict(self).items() if getattr(default, k) != v}

    def query(self) -> str:
        """The query string of this state: only what differs from the defaults."""
        return urlencode({k: _text(v) for k, v in self.changed().items()})

    def with_(self, **changes: Any) -> UiState:
        return replace(self, **changes)

    # ----- sharing ------------------------------------------------------------------------------
    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2)

    def to_yaml(self) -> str:
        import yaml  # a dependency of the core already; imported when asked

        return str(yaml.safe_dump(asdict(self), sort_keys=False))

    def model_argument(self, upload_name: str = "config.json") -> str:
        return upload_name if self.upload else self.model

    def command_line(self, upload_name: str = "config.json") -> str:
        """The equivalent ``mlcost`` command line (its options as ``mlcost --help`` lists them)."""
        words = ["mlcost", self.q if self.q != "train" else "plan"]
        words.append(self.model_argument(upload_name))
        if self.q == "serve":
            words += self._hardware()
            words += ["--prompt", str(self.prompt), "--output", str(self.output)]
            words += ["--engine", self.engine, "--weights", self.weights]
            if self.tpsrv > 1:
                words += ["--tp", str(self.tpsrv)]
            if self.batch:
                words += ["--batch", str(self.batch)]
            if self.ttft:
                words += ["--ttft", f"{self.ttft:g}ms"]
            if self.tpot:
                words += ["--tpot", f"{self.tpot:g}ms"]
            words += ["--region", self.region]
            if self.price:
                words += ["--price", f"{self.price:g}"]
            return shlex.join(words)
        words += ["--gpu", self.gpu] if self.q == "fit" else self._hardware()
        words += ["--seq", str(self.seq), "--precision", self.precision]
        if self.mode != "pretrain":
            words += ["--finetune", self.mode]
            if self.mode != "full":
                words += ["--lora-rank", str(self.rank), "--lora-targets", "all-linear"]
        if self.q == "fit":
            return shlex.join(words)
        words += ["--gpus", str(self.gpus), "--tokens", f"{self.tokens:g}"]
        if self.gbs:
            words += ["--global-batch", str(self.gbs)]
        if self.layout == "manual":
            words += ["--dp", str(self.dp), "--tp", str(self.tp), "--pp", str(self.pp)]
            words += ["--batch", str(self.mbs), "--zero", str(self.zero)]
            words += ["--recompute", self.recompute]
        words += ["--implementation", self.impl, "--region", self.region]
        if self.price:
            words += ["--price", f"{self.price:g}"]
        return shlex.join(words)

    def _hardware(self) -> list[str]:
        return ["--system", self.system] if self.system else ["--gpu", self.gpu]

    def _hardware_python(self) -> str:
        return f"system={self.system!r}" if self.system else f"gpu={self.gpu!r}"

    def python(self, upload_name: str = "config.json") -> str:
        """A Python snippet computing the same answer with the public API."""
        model = repr(self.model_argument(upload_name))
        region = f", region={self.region!r}"
        price = f", price='{self.price:g} USD/hour'" if self.price else ""
        if self.q == "serve":
            extra = f", tp={self.tpsrv}" if self.tpsrv > 1 else ""
            extra += f", batch={self.batch}" if self.batch else ""
            extra += f", ttft='{self.ttft:g} ms'" if self.ttft else ""
            extra += f", tpot='{self.tpot:g} ms'" if self.tpot else ""
            return (
                "import mlcost\n\n"
                f"serve = mlcost.ServePlan({model}, {self._hardware_python()}, "
                f"prompt={self.prompt}, output={self.output}, engine={self.engine!r}, "
                f"weights={self.weights!r}"
                f"{extra}{region}{price})\n"
                "print(serve.summary())\n"
            )
        finetune = ""
        if self.mode != "pretrain":
            adapters = (
                f", rank={self.rank}, target_modules=('all-linear',)" if self.mode != "full" else ""
            )
            finetune = f", finetune=FineTuning(method={self.mode!r}{adapters})"
        config = (
            f"config = TrainingConfig(sequence_length={self.seq}, "
            f"precision={self.precision!r}{finetune})\n"
        )
        head = "import mlcost\nfrom mlcost import FineTuning, Layout, TrainingConfig\n\n" + config
        if self.q == "fit":
            return head + (
                f"fit = mlcost.finetuning_fit({model}, {self.gpu!r}, config)\n"
                "print(fit.to_frame())\n"
            )
        layout = ""
        if self.layout == "manual":
            layout = (
                f", layout=Layout(dp={self.dp}, tp={self.tp}, pp={self.pp}, "
                f"micro_batch_size={self.mbs}, zero_stage={self.zero}, "
                f"recompute={self.recompute!r}"
                + (f", global_batch_size={self.gbs}" if self.gbs else "")
                + ")"
            )
        gbs = f", global_batch_size={self.gbs}" if self.gbs and self.layout != "manual" else ""
        return head + (
            f"plan = mlcost.Plan({model}, {self._hardware_python()}, gpus={self.gpus}, "
            f"tokens={self.tokens:g}, config=config{layout}{gbs}, "
            f"implementation={self.impl!r}{region}{price})\n"
            "print(plan.summary())\n"
        )


def _text(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


__all__ = ["UiState"]
