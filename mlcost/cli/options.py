"""The options commands share, declared once: the training configuration, the layout, and the
one resolver of model, GPU and system names (catalog names, spec YAML files, calibrated
profiles, Hugging Face ``config.json``).

A command takes a group with :func:`with_options`: the group's options are added to its
signature, and the command receives the object they build (``config: TrainingConfig``,
``layout: Layout``) instead of the loose values.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import pint
import typer

from mlcost.errors import DeprecatedOptionWarning, MlcostError, UnitError
from mlcost.finetune import FineTuning
from mlcost.layout import Layout
from mlcost.records import Record
from mlcost.specs import Accelerator, ModelSpec, Spec, default_catalog
from mlcost.specs.catalog import as_accelerator, as_model
from mlcost.units import Q_, check_dimension, parse_quantity
from mlcost.workload import TrainingConfig, config_for_model

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

DEFAULT_MODEL = "llama-2-7b"
DEFAULT_GPU = "h100-sxm5-80gb"

ForceOption = Annotated[
    bool,
    typer.Option("--force", help="Replace output files that exist (an input is never replaced)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
ExplainOption = Annotated[
    bool,
    typer.Option(
        "--explain", help="Every figure with its formula, the numbers substituted and its source."
    ),
]
AllOption = Annotated[
    bool, typer.Option("--all", help="Every figure as a table (the default is the short answer).")
]
GpuOption = Annotated[
    str,
    typer.Option(
        "--gpu", help="Accelerator: catalog name or alias, spec YAML or calibrated profile."
    ),
]
SystemGpuOption = Annotated[
    str | None,
    typer.Option(
        "--gpu",
        help="Accelerator in place of the system's: catalog name, spec YAML or calibrated profile.",
    ),
]
NodesOption = Annotated[
    int | None, typer.Option("--nodes", help="Number of nodes (default: the system's).")
]
ImplementationOption = Annotated[
    str | None,
    typer.Option(
        "--implementation",
        help="The software that runs the step: megatron-core (default) | fsdp | ddp-eager | "
        "deepspeed | pytorch-cpu | a profile YAML.",
    ),
]
ModelArgument = Annotated[
    str, typer.Argument(help="Model: catalog name or alias, spec YAML or HF config.json.")
]


#: Old option spellings kept for one release, by command: old name -> new name (issue 64: one
#: meaning per option name across commands). Each is a hidden option that warns.
DEPRECATED_OPTIONS: dict[str, dict[str, str]] = {
    "plan": {"--plot": "--plot-dir"},
    "serve": {"--batch": "--concurrency", "--output": "--output-tokens"},
    "memory": {"--profile": "--memory-model"},
    "fit": {"--profile": "--memory-model"},
    "specs import-hf": {"--output": "--out"},
    "bench": {"--out": "--out-dir"},
}


def renamed(new: T | None, old: T | None, old_name: str, new_name: str) -> T | None:
    """The value of an option given by its name (``new``) or by its deprecated old spelling
    (``old``: warns :class:`DeprecatedOptionWarning`); both given is an error."""
    if old is None:
        return new
    if new is not None:
        raise MlcostError(f"{old_name}: the old spelling of {new_name}; give {new_name} alone")
    warnings.warn(
        f"{old_name} is deprecated (gone in the next release); say {new_name}",
        DeprecatedOptionWarning,
        stacklevel=2,
    )
    return old


# ----- parsing ----------------------------------------------------------------------------------
def quantity_option(text: str, unit: str, option: str) -> pint.Quantity:
    """``'70GiB'``, ``'2.5 USD/hour'`` or a bare number taken in ``unit``; must be > 0."""
    try:
        quantity = Q_(float(text), unit)
    except ValueError:
        try:
            quantity = check_dimension(parse_quantity(text, field=option), unit, field=option)
        except UnitError:
            raise MlcostError(f"{option}: got {text!r}, expected a quantity in {unit}") from None
    magnitude = quantity.magnitude
    if not (magnitude > 0 and magnitude != float("inf")):
        raise MlcostError(f"{option}: got {text!r}, expected a finite quantity in {unit} > 0")
    return quantity


def price_option(text: str | None) -> Any:
    """``--price``: a number or quantity (``2.5``, ``.5``, ``'3 USD/hour'``; negative, zero and
    non-finite refused by :func:`quantity_option`), else a catalog price name or alias."""
    if text is None:
        return None
    head = text.strip()[:2]
    if head[:1].isdigit() or head[:1] in "+-" or (head[:1] == "." and head[1:2].isdigit()):
        return quantity_option(text, "USD/hour", "--price")
    lowered = text.strip().lower()
    if lowered in ("inf", "+inf", "infinity", "nan"):
        return quantity_option(text, "USD/hour", "--price")
    return text


# ----- the one resolver -------------------------------------------------------------------------
def resolve_model(name: str) -> ModelSpec:
    """A model by catalog name, spec YAML or Hugging Face ``config.json``."""
    return as_model(name)


def resolve_accelerator(name: str) -> Accelerator:
    """An accelerator by catalog name, spec YAML or calibrated profile."""
    return as_accelerator(name)


def resolve_spec(name: str, kinds: tuple[str, ...] | None = None) -> Spec:
    """Any spec by catalog name or file."""
    return default_catalog().resolve(name, kinds)


# ----- option groups ----------------------------------------------------------------------------
class OptionGroup(Record, frozen=True):
    """Options that build one object: the command receives it as ``target``."""

    target: str
    parameters: tuple[inspect.Parameter, ...]
    build: Callable[[dict[str, Any]], Any]


def _option(name: str, annotation: Any, default: Any) -> inspect.Parameter:
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
    )


def with_options(*groups: OptionGroup) -> Callable[[F], F]:
    """Add each group's options to a typer command; pass it the objects they build."""

    def decorate(func: F) -> F:
        signature = inspect.signature(func, eval_str=True)
        targets = {group.target for group in groups}
        own = [
            p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
            for p in signature.parameters.values()
            if p.name not in targets
        ]
        extra = [p for group in groups for p in group.parameters]

        @functools.wraps(func)
        def command(**values: Any) -> Any:
            for group in groups:
                given = {p.name: values.pop(p.name) for p in group.parameters}
                values[group.target] = group.build(given)
            if isinstance(values.get("config"), TrainingConfig) and isinstance(
                values.get("model"), str
            ):  # the model's positions cap the default sequence and bound a given one
                values["config"] = config_for_model(
                    values["config"], resolve_model(values["model"])
                )
            return func(**values)

        command.__signature__ = signature.replace(parameters=own + extra)  # type: ignore[attr-defined]
        return command  # type: ignore[return-value]

    return decorate


#: Fine-tuning options (``--finetune``, ``--lora-*``, ``--freeze*``) and the
#: :class:`mlcost.finetune.FineTuning` field each sets.
_FINETUNE_NAMES = {
    "finetune": "method",
    "lora_rank": "rank",
    "lora_alpha": "alpha",
    "lora_dropout": "dropout",
    "lora_targets": "target_modules",
    "lora_bias": "bias",
    "freeze": "frozen",
    "freeze_layers": "frozen_layers",
}


def _comma_list(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def finetuning_from_options(values: dict[str, Any]) -> FineTuning | None:
    """The :class:`FineTuning` the ``--finetune``/``--lora-*``/``--freeze*`` options describe
    (``None`` when none is given); lists are comma-separated."""
    given = {}
    for option, field in _FINETUNE_NAMES.items():
        value = values.pop(option, None)
        if value is None:
            continue
        given[field] = _comma_list(value) if field in ("target_modules", "frozen") else value
    if not given:
        return None
    if "method" not in given and ("target_modules" in given or "rank" in given):
        given["method"] = "lora"
    return FineTuning(**given)


def _training_config(values: dict[str, Any]) -> TrainingConfig:
    values = dict(values)
    tuning = finetuning_from_options(values)
    names = {"seq": "sequence_length", "window": "attention_window"}
    given = {names.get(k, k): v for k, v in values.items() if v is not None}
    if tuning is not None:
        given["finetune"] = tuning
    return TrainingConfig(**given)


def _flag(name: str, kind: type, flags: tuple[str, ...], text: str) -> inspect.Parameter:
    """An optional option of a group: ``None`` when not given (the object's default then)."""
    return _option(name, Annotated[kind | None, typer.Option(*flags, help=text)], None)


TRAINING = OptionGroup(
    "config",
    (
        _flag(
            "seq", int, ("--seq", "-s"),
            "Sequence length (tokens; default 2048, or the model's positions if fewer).",
        ),
        _flag(
            "precision", str, ("--precision",),
            "fp32 | fp16-mixed | bf16-mixed (default) | bf16 | fp8 | fp8-params (FP8 weights)",
        ),
        _flag("attention", str, ("--attention",), "eager | flash (default)"),
        _flag(
            "attention_flops", str, ("--attention-flops",),
            "executed (default: every score the kernel computes) | causal",
        ),
        _flag(
            "optimizer", str, ("--optimizer",),
            "adamw (default) | adamw-bf16 | adam | sgd | lion | ...",
        ),
        _flag("window", int, ("--window",), "Sliding-window attention of this many keys."),
        _flag("image_size", int, ("--image-size",), "Conv nets: pixels."),
        _flag(
            "finetune", str, ("--finetune",),
            "full (default) | lora | qlora (NF4 base, double quantization, paged optimizer).",
        ),
        _flag("lora_rank", int, ("--lora-rank",), "LoRA rank r (default 8)."),
        _flag("lora_alpha", float, ("--lora-alpha",), "LoRA alpha (default 8; scale alpha/r)."),
        _flag("lora_dropout", float, ("--lora-dropout",), "LoRA dropout (default 0)."),
        _flag(
            "lora_targets", str, ("--lora-targets",),
            "peft module names, comma-separated (q_proj,v_proj | c_attn | all-linear ...).",
        ),
        _flag("lora_bias", str, ("--lora-bias",), "none (default) | all | lora_only"),
        _flag(
            "freeze", str, ("--freeze",),
            "Full fine-tuning: frozen parts, comma-separated (embeddings, lm_head, norms).",
        ),
        _flag(
            "freeze_layers", int, ("--freeze-layers",),
            "Full fine-tuning: freeze the first k layers.",
        ),
    ),
    _training_config,
)  # fmt: skip

_STEP_OPTIONS = (
    _flag("batch", int, ("--batch", "-b"), "Micro-batch size (default 1)."),
    _flag(
        "accumulation", int, ("--accumulation",),
        "Micro-batches per step per data-parallel replica (gradient accumulation; default 1).",
    ),
    _flag("recompute", str, ("--recompute",), "none (default) | selective | full | every-k"),
    _flag("recompute_every", int, ("--recompute-every",), "k for --recompute every-k."),
    _flag(
        "recompute_modules", str, ("--recompute-modules",),
        "With --recompute selective: the regions replayed, comma-separated, Megatron-Core's "
        "names (core_attn (default), layernorm, mla_up_proj, moe_act, mlp, moe, shared_experts).",
    ),
)  # fmt: skip
_PARALLEL_OPTIONS = (
    _flag("dp", int, ("--dp",), "Data-parallel degree."),
    _flag("tp", int, ("--tp",), "Tensor-parallel degree."),
    _flag("pp", int, ("--pp",), "Pipeline-parallel degree."),
    _flag("cp", int, ("--cp",), "Context-parallel degree."),
    _flag("ep", int, ("--ep",), "Expert-parallel degree (MoE models; divides --dp)."),
    _flag("vp", int, ("--vp",), "Virtual pipeline stages per GPU (interleaved 1F1B)."),
    _flag("zero", int, ("--zero",), "ZeRO stage 0-3 over the data-parallel ranks."),
    _flag("sp", bool, ("--sp/--no-sp",), "Sequence parallelism (with --tp)."),
    _flag(
        "tp_overlap", bool, ("--tp-overlap/--no-tp-overlap",),
        "Overlap tensor-parallel communication with the GEMMs (with --sp).",
    ),
    _flag(
        "ep_overlap", bool, ("--ep-overlap/--no-ep-overlap",),
        "Hide the expert-parallel all-to-all behind another micro-batch (with --ep).",
    ),
    _flag(
        "offload", bool, ("--offload/--no-offload",),
        "Optimizer states and master weights in host memory.",
    ),
    _flag(
        "global_batch", int, ("--global-batch",),
        "Sequences per optimizer step (instead of --accumulation).",
    ),
)  # fmt: skip
_LAYOUT_NAMES = {
    "batch": "micro_batch_size",
    "accumulation": "gradient_accumulation",
    "vp": "virtual_stages",
    "zero": "zero_stage",
    "sp": "sequence_parallel",
    "global_batch": "global_batch_size",
}


def layout_from_options(values: dict[str, Any]) -> Layout | None:
    """The layout the given options describe; ``None`` when none was given."""
    given = {_LAYOUT_NAMES.get(k, k): v for k, v in values.items() if v is not None}
    modules = given.get("recompute_modules")
    if isinstance(modules, str):  # --recompute-modules layernorm,moe_act
        given["recompute_modules"] = tuple(m.strip() for m in modules.split(",") if m.strip())
    return Layout(**given) if given else None


STEP_LAYOUT = OptionGroup(
    "layout", _STEP_OPTIONS, lambda values: layout_from_options(values) or Layout()
)
LAYOUT = OptionGroup(
    "layout",
    _STEP_OPTIONS + _PARALLEL_OPTIONS,
    lambda values: layout_from_options(values) or Layout(),
)
#: For ``mlcost plan``: ``None`` when no layout option is given (the plan then searches).
PLAN_LAYOUT = OptionGroup("layout", _STEP_OPTIONS + _PARALLEL_OPTIONS, layout_from_options)
