"""A plan's two cached stages: energy, cost and CO2e (:func:`mlcost.plan.chain.evaluate_money`)
are evaluated only when an answer reads them, and once: ``Plan.train()`` never does, the order
of the questions never changes an answer, and a plan that reads them twice computes them
once."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import mlcost.plan as plan_module
from mlcost.plan import Plan, chain


def _plan(**overrides: Any) -> Plan:
    settings: dict[str, Any] = dict(system="dgx-h100", tokens=2e12, region="us")
    settings.update(overrides)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Plan("llama-2-7b", **settings)


def _counted(patch: pytest.MonkeyPatch) -> list[int]:
    """Count the calls of the chain's money stages from the plan (the name it calls)."""
    calls: list[int] = []
    original = chain.evaluate_money

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    patch.setattr(plan_module, "evaluate_money", counting)
    return calls


def _shown(result: Any) -> list[tuple[str, str]]:
    """A result's figures as printed (name, value with its band)."""
    figures = result if isinstance(result, list) else result.figures()
    return [(f.name, f.text()) for f in figures]


def test_time_to_train_never_evaluates_energy_cost_or_carbon() -> None:
    with pytest.MonkeyPatch.context() as patch:
        calls = _counted(patch)
        plan = _plan()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plan.train()
        plan.step_time()
        assert plan.fits
        assert calls == []
        plan.energy()
        plan.cost()
        plan.carbon()
        plan.figures()
        assert calls == [1]  # once, for every answer that reads them


def test_the_order_of_the_questions_changes_no_answer() -> None:
    first, second = _plan(), _plan()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        time_first = first.train()
        carbon_second = second.carbon()
        energy_second = second.energy()
        time_second = second.train()
    assert _shown(time_first) == _shown(time_second)
    assert _shown(first.energy()) == _shown(energy_second)
    assert _shown(first.carbon()) == _shown(carbon_second)
    assert _shown(first.figures()) == _shown(second.figures())
