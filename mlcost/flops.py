"""FLOPs of a training step: the exact count from the operator table, beside the closed forms.

Conventions: a multiply-add is 2 FLOPs. *Model FLOPs* (what MFU counts; Chowdhery et al. 2022,
appendix B) are forward + backward; *hardware FLOPs* (HFU) add the forward work repeated for
activation recomputation. Attention FLOPs follow ``TrainingConfig.attention_flops`` (default
``executed``: the full score matrix of eager kernels, as the papers' formulas count it).

Closed forms reported beside the exact count, all vectorized over numpy arrays:

* ``6·N·D`` (Kaplan et al. 2020, section 2.1): forward 2N, backward 4N FLOPs per token;
  ``8·N·D`` with full recomputation (one more forward).
* Narayanan et al. 2021, equation (3), with full recomputation:
  ``96·B·s·l·h^2·(1 + s/(6h) + V/(16·l·h))``; without it the same terms give
  ``72·B·s·l·h^2·(1 + s/(6h) + V/(12·l·h))`` (their section 5.1 derivation, 3 passes instead
  of 4). Both assume MHA and an FFN of 4h.
* PaLM (Chowdhery et al. 2022, appendix B): ``6·N + 12·L·H·Q·T`` model FLOPs per token.
* The textbook chapter's per-layer forward count ``22·B·s·h^2 + 4·B·s^2·h``, which leaves out
  the attention output projection, beside the complete ``24·B·s·h^2 + 4·B·s^2·h``
  (the seed catalog of the textbook chapter, W-02 and erratum D-04).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pint

from mlcost.arrays import Real
from mlcost.checks import argument
from mlcost.layout import Layout
from mlcost.records import Record, field
from mlcost.results import Figure, Result
from mlcost.specs import ModelSpec, TransformerSpec
from mlcost.specs.catalog import as_model
from mlcost.units import Q_, in_unit, magnitude_in
from mlcost.workload import OperatorTable, TrainingConfig, operators

if TYPE_CHECKING:
    import pandas as pd

#: A count: a bare number (or array), or a quantity in its unit (``param``, ``token``).
Count = Real | pint.Quantity


def six_nd(parameters: Count, tokens: Count) -> pint.Quantity:
    """Training FLOPs ``6·N·D`` (Kaplan et al. 2020, section 2.1)."""
    return Q_(6 * _count(parameters, "param") * _count(tokens, "token"), "flop")


def eight_nd(parameters: Count, tokens: Count) -> pint.Quantity:
    """Training FLOPs with full activation recomputation, ``8·N·D``."""
    return Q_(8 * _count(parameters, "param") * _count(tokens, "token"), "flop")


def narayanan_flops(
    batch: Real,
    sequence: Real,
    layers: Real,
    hidden: Real,
    vocab: Real,
    *,
    recompute: bool = True,
) -> pint.Quantity:
    """FLOPs per iteration of a GPT model, Narayanan et al. 2021 equation (3).

    With full recomputation ``96·B·s·l·h^2·(1 + s/(6h) + V/(16·l·h))``; without it
    ``72·B·s·l·h^2·(1 + s/(6h) + V/(12·l·h))``.
    """
    b, s, l_, h, v = batch, sequence, layers, hidden, vocab
    if recompute:
        return Q_(96 * b * s * l_ * h * h * (1 + s / (6 * h) + v / (16 * l_ * h)), "flop")
    return Q_(72 * b * s * l_ * h * h * (1 + s / (6 * h) + v / (12 * l_ * h)), "flop")


def palm_flops_per_token(
    parameters: Count, layers: Real, heads: Real, head_dim: Real, sequence: Real
) -> pint.Quantity:
    """Model FLOPs per token ``6·N + 12·L·H·Q·T`` (Chowdhery et al. 2022, appendix B)."""
    n = _count(parameters, "param")
    return Q_(6 * n + 12 * layers * heads * head_dim * sequence, "flop / token")


def chapter_layer_forward_flops(batch: Real, sequence: Real, hidden: Real) -> pint.Quantity:
    """The chapter's per-layer forward FLOPs ``22·B·s·h^2 + 4·B·s^2·h``: Q, K, V (6), FFN (16),
    scores and score x V (4·B·s^2·h); the output projection (2·B·s·h^2) is missing."""
    b, s, h = batch, sequence, hidden
    return Q_(22 * b * s * h * h + 4 * b * s * s * h, "flop")


def layer_forward_flops(batch: Real, sequence: Real, hidden: Real) -> pint.Quantity:
    """Complete per-layer forward GEMM FLOPs of an MHA layer with FFN 4h:
    ``24·B·s·h^2 + 4·B·s^2·h`` (Q, K, V, O: 8; FFN: 16; attention matmuls: 4·B·s^2·h)."""
    b, s, h = batch, sequence, hidden
    return Q_(24 * b * s * h * h + 4 * b * s * s * h, "flop")


def _count(value: Count, unit: str) -> Real:
    """A count of ``unit`` as a number: a bare count, or a quantity in ``unit``."""
    return magnitude_in(value, unit, unit + "s", bare=True)


class FlopsSummary(Record, Result, frozen=True):
    """FLOPs of one training step, exact, with the closed forms beside them."""

    table: OperatorTable
    model: ModelSpec
    config: TrainingConfig
    layout: Layout = field(default_factory=Layout)

    @property
    def tokens(self) -> pint.Quantity:
        return Q_(self.table.tokens_per_step, "token")

    @property
    def forward(self) -> pint.Quantity:
        return self.table.forward_flops

    @property
    def backward(self) -> pint.Quantity:
        return self.table.backward_flops

    @property
    def recompute(self) -> pint.Quantity:
        return self.table.recompute_flops

    @property
    def model_flops(self) -> pint.Quantity:
        """Forward + backward (what MFU counts)."""
        return self.table.model_flops

    @property
    def hardware_flops(self) -> pint.Quantity:
        """Forward + backward + recomputation (what HFU counts)."""
        return self.table.hardware_flops

    @property
    def model_flops_per_token(self) -> pint.Quantity:
        return self.model_flops / self.tokens

    def estimates(self) -> dict[str, pint.Quantity]:
        """The closed forms for this step (transformers only)."""
        model = self.model
        if not isinstance(model, TransformerSpec):
            return {"6ND": six_nd(model.parameters, self.tokens)}
        b = self.layout.micro_batch_size * self.layout.micro_batches
        s = self.config.sequence_length
        h, layers = model.hidden_size, model.num_layers
        active = model.active_parameters  # N of a mixture of experts: the parameters a token uses
        return {
            "6ND": six_nd(active, self.tokens),
            "8ND (full recompute)": eight_nd(active, self.tokens),
            "Narayanan eq. 3 (no recompute)": narayanan_flops(
                b, s, layers, h, model.vocab_size, recompute=False
            ),
            "Narayanan eq. 3 (full recompute)": narayanan_flops(
                b, s, layers, h, model.vocab_size, recompute=True
            ),
            "PaLM 6N + 12LHQT": (
                palm_flops_per_token(active, layers, model.num_attention_heads, model.head_size, s)
                * self.tokens
            ).to("flop"),
            "chapter 3·L·(22·B·s·h^2 + 4·B·s^2·h)": 3
            * layers
            * chapter_layer_forward_flops(b, s, h),
            "complete 3·L·(24·B·s·h^2 + 4·B·s^2·h)": 3 * layers * layer_forward_flops(b, s, h),
        }

    def rows(self) -> list[tuple[str, pint.Quantity, float | None]]:
        """(quantity, FLOPs, relative difference from the exact model FLOPs) for the exact
        figures (difference ``None``) and every closed form."""
        rows: list[tuple[str, pint.Quantity, float | None]] = [
            ("forward", self.forward, None),
            ("backward", self.backward, None),
            ("recompute", self.recompute, None),
            ("model FLOPs (MFU)", self.model_flops, None),
            ("hardware FLOPs (HFU)", self.hardware_flops, None),
            ("GEMM FLOPs (fwd + bwd)", self.table.matmul_flops(), None),
            ("optimizer update", self.table.optimizer_flops, None),
        ]
        exact = in_unit(self.model_flops, "flop")
        for name, value in self.estimates().items():
            rows.append((name, value, in_unit(value, "flop") / exact - 1))
        return rows

    def to_frame(self) -> pd.DataFrame:
        """:meth:`rows` as a DataFrame (FLOPs in FLOP)."""
        import pandas as pd

        return pd.DataFrame(
            [
                {"quantity": name, "flops": in_unit(value, "flop"), "vs_exact": diff}
                for name, value, diff in self.rows()
            ]
        )

    VERDICT = ("model FLOPs (MFU)", "hardware FLOPs (HFU)", "forward", "backward", "recompute")

    def title(self) -> str:
        return f"FLOPs per training step: {self.table.description}"

    def figures(self) -> list[Figure]:
        """Every row of :meth:`rows`, closed forms with their difference from the exact count."""
        return [
            Figure(
                name,
                value,
                "" if diff is None else f"{diff:+.2%} vs exact model FLOPs",
                "",
                "mlcost.workload operator table" if diff is None else "closed form (docstring)",
            )
            for name, value, diff in self.rows()
        ]


def training_flops(
    model: ModelSpec | str, config: TrainingConfig | None = None, layout: Layout | None = None
) -> FlopsSummary:
    """The FLOPs summary of one training step of ``model`` under ``config`` and ``layout``
    (micro-batch, micro-batches, recomputation)."""
    spec = as_model(model)
    config = TrainingConfig() if config is None else argument(config, TrainingConfig, "config")
    layout = Layout() if layout is None else argument(layout, Layout, "layout")
    return FlopsSummary(operators(spec, config, layout), spec, config, layout)
