"""The terms' hidden time is capped, all together, at the compute it hides behind
(``share_the_compute``): a surplus ``sum(hidden) - window`` becomes exposed, each term taking
the share of it its hidden time is of the total. The function computes the share only for the
candidates that have a surplus; the oracle here is the formula written out for every candidate,
``exposed + max(sum(hidden) - window, 0) x hidden / sum(hidden)`` (0 where nothing is hidden),
which must agree to the bit, NaN and the sign of zero included."""

from __future__ import annotations

import numpy as np

from mlcost.comms import Collective
from mlcost.parallel.degrees import CommTerm
from mlcost.parallel.traffic import share_the_compute


def _term(time: np.ndarray, exposed: np.ndarray) -> CommTerm:
    return CommTerm(
        strategy="s", collective=Collective.ALL_REDUCE, label="all-reduce",
        message_bytes=np.ones_like(time), calls=np.ones_like(time), ranks=np.full(time.shape, 2),
        link_code=np.zeros(time.shape, dtype=int), time_seconds=time, exposed_seconds=exposed,
        formula="", source="",
    )  # fmt: skip


def _by_hand(terms: list[CommTerm], window: np.ndarray) -> list[np.ndarray]:
    hidden = [t.time_seconds - t.exposed_seconds for t in terms]
    total = hidden[0]
    for part in hidden[1:]:
        total = total + part
    surplus = np.maximum(total - window, 0.0)
    out = []
    for term, part in zip(terms, hidden, strict=True):
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(total > 0, part / np.where(total > 0, total, 1.0), 0.0)
        out.append(term.exposed_seconds + surplus * share)
    return out


def _same(left: np.ndarray, right: np.ndarray) -> bool:
    """Equal to the bit: the same values, NaN where the other has NaN, the same sign of 0."""
    return bool(np.array_equal(left, right, equal_nan=True)) and bool(
        np.array_equal(np.signbit(left), np.signbit(right))
    )


def test_the_surplus_is_shared_as_the_formula_says_for_every_candidate() -> None:
    rng = np.random.default_rng(17)
    n = 20_000
    times = [rng.uniform(0.0, 2.0, n) for _ in range(4)]
    times[3][rng.random(n) < 0.5] = 0.0  # a term inactive on half of the candidates
    exposed = [t * rng.uniform(0.0, 1.0, n) for t in times]
    exposed[1][rng.random(n) < 0.1] = -0.0  # nothing exposed, written as -0
    window = rng.uniform(0.0, 6.0, n)
    window[:50] = np.inf  # everything hides
    times[0][50:60] = np.nan  # a NaN propagates into every term of its candidate
    terms = [_term(t, e) for t, e in zip(times, exposed, strict=True)]
    shared = share_the_compute(terms, window)
    expected = _by_hand(terms, window)
    over = np.maximum(sum(t - e for t, e in zip(times, exposed, strict=True)) - window, 0.0) > 0
    assert 0.05 * n < over.sum() < 0.95 * n  # both kinds of candidates, and many of each
    for term, before, want in zip(shared, terms, expected, strict=True):
        assert _same(term.exposed_seconds, want)
        assert term.time_seconds is before.time_seconds  # only the exposed part moves


def test_one_configuration_and_no_surplus() -> None:
    one = [_term(np.array([1.0]), np.array([0.25])), _term(np.array([2.0]), np.array([0.5]))]
    # Hidden 0.75 + 1.5 = 2.25 behind a window of 1: a surplus of 1.25, shared 1/3 and 2/3.
    first, second = share_the_compute(one, np.array([1.0]))
    assert first.exposed_seconds[0] == 0.25 + 1.25 * (0.75 / 2.25)
    assert second.exposed_seconds[0] == 0.5 + 1.25 * (1.5 / 2.25)
    # A window longer than what is hidden: the terms come back as they were.
    assert share_the_compute(one, np.array([3.0])) == one
