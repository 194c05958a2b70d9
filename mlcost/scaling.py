"""Scaling-law planning (Hoffmann et al. 2022, "Training Compute-Optimal Large Language
Models"): the loss ``L(N, D) = E + A/N^alpha + B/D^beta`` and the compute-optimal split of a
FLOP budget ``C = 6·N·D``.

Minimizing ``L`` subject to ``6·N·D = C`` gives (Hoffmann et al., appendix D.2)::

    N_opt = G · (C/6)^(beta/(alpha+beta)),  D_opt = G^-1 · (C/6)^(alpha/(alpha+beta)),
    G = (alpha·A / (beta·B))^(1/(alpha+beta)).

Fits: ``HOFFMANN`` (approach 3: E 1.69, A 406.4, B 410.7, alpha 0.34, beta 0.28) and
``EPOCH`` (Besiroglu et al. 2024, "Chinchilla Scaling: A replication attempt": E 1.82,
A 482.01, B 2085.43, alpha 0.3478, beta 0.3658). The rule of thumb ``D = 20·N`` gives
``N = sqrt(C/120)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mlcost.arrays import Real
from mlcost.errors import MlcostError
from mlcost.records import Record
from mlcost.units import Q_


class LossFit(Record, frozen=True):
    name: str
    E: float
    A: float
    B: float
    alpha: float
    beta: float
    source: str

    def loss(self, parameters: Real, tokens: Real) -> Real:
        """``E + A/N^alpha + B/D^beta``."""
        n = np.asarray(parameters, dtype=np.float64)
        d = np.asarray(tokens, dtype=np.float64)
        return self.E + self.A / n**self.alpha + self.B / d**self.beta

    def compute_optimal(self, flops: Real) -> tuple[Real, Real]:
        """``(N_opt, D_opt)`` for a budget of ``flops`` (closed form, module docstring)."""
        c = np.asarray(flops, dtype=np.float64) / 6
        g = (self.alpha * self.A / (self.beta * self.B)) ** (1 / (self.alpha + self.beta))
        n = g * c ** (self.beta / (self.alpha + self.beta))
        d = c ** (self.alpha / (self.alpha + self.beta)) / g
        return n, d


HOFFMANN = LossFit(
    "hoffmann-2022",
    1.69,
    406.4,
    410.7,
    0.34,
    0.28,
    "Hoffmann et al. 2022, section 3.3 (approach 3), equation 10 fit",
)
EPOCH = LossFit(
    "epoch-2024",
    1.82,
    482.01,
    2085.43,
    0.3478,
    0.3658,
    "Besiroglu et al. 2024, 'Chinchilla Scaling: A replication attempt', table 1",
)


def twenty_tokens_per_parameter(flops: Real) -> tuple[Real, Real]:
    """The ``D = 20·N`` rule: ``N = sqrt(C/120)``, ``D = 20·N``."""
    n = np.sqrt(np.asarray(flops, dtype=np.float64) / 120)
    return n, 20 * n


def distance_from_optimal(parameters: Real, tokens: Real, fit: LossFit = HOFFMANN) -> Real:
    """``N / N_opt`` at the plan's own budget ``6·N·D`` (1 is compute-optimal; a factor of a few
    away in either direction wastes compute)."""
    n = np.asarray(parameters, dtype=np.float64)
    n_opt, _ = fit.compute_optimal(6 * n * np.asarray(tokens, dtype=np.float64))
    return n / n_opt


def budget_flops(
    flop_rate_per_gpu: Any,
    gpus: int,
    *,
    usd: Any = None,
    days: Any = None,
    tco2e: Any = None,
    price_per_gpu_hour: Any = None,
    carbon_per_gpu_hour: Any = None,
) -> Any:
    """The training FLOPs a budget buys on a system (the inverse of the time/cost/carbon chain).

    * ``days``: ``C = days · N_gpu · R`` with ``R`` the achieved FLOP/s per GPU (peak · MFU);
    * ``usd``: ``C = (USD / price per GPU-hour) · R``;
    * ``tco2e``: ``C = (tCO2e / tCO2e per GPU-hour) · R``.

    With several budgets the tightest one binds (the minimum). Quantities in, quantity out.
    """
    rate = flop_rate_per_gpu.to("flop/hour")
    candidates = []
    if days is not None:
        candidates.append((days * gpus * rate).to("flop"))
    if usd is not None:
        if price_per_gpu_hour is None or not np.isfinite(price_per_gpu_hour.magnitude):
            raise MlcostError("budget_flops: usd budget needs price_per_gpu_hour (USD/hour)")
        candidates.append((usd / price_per_gpu_hour * rate).to("flop"))
    if tco2e is not None:
        if carbon_per_gpu_hour is None or carbon_per_gpu_hour.magnitude <= 0:
            raise MlcostError("budget_flops: a tCO2e budget needs carbon_per_gpu_hour > 0")
        candidates.append((tco2e / carbon_per_gpu_hour * rate).to("flop"))
    if not candidates:
        raise MlcostError("budget_flops: give at least one of usd=, days= or tco2e=")
    return Q_(np.min([c.magnitude for c in candidates], axis=0), "flop")
