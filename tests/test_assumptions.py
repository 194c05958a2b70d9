"""The shared default assumptions (:data:`mlcost.assumptions.DEFAULT_ASSUMPTIONS`, built
without validation) against the ones pydantic validates."""

from __future__ import annotations

import mlcost
from mlcost.assumptions import DEFAULT_ASSUMPTIONS, Assumptions
from mlcost.layout import Layout
from mlcost.plan import Plan


def test_the_shared_defaults_equal_the_validated_ones() -> None:
    """``DEFAULT_ASSUMPTIONS`` equals ``Assumptions()`` (built by pydantic's validating
    constructor) field by field, each value of the same type and equal to the field's declared
    default; it is frozen like any ``Assumptions``."""
    validated = Assumptions()
    assert type(DEFAULT_ASSUMPTIONS) is Assumptions
    assert validated == DEFAULT_ASSUMPTIONS
    for name, info in Assumptions.model_fields.items():
        shared, checked = getattr(DEFAULT_ASSUMPTIONS, name), getattr(validated, name)
        assert type(shared) is type(checked), name
        assert shared == checked == info.default, name
    assert DEFAULT_ASSUMPTIONS.model_fields_set == validated.model_fields_set == set()


def test_a_plan_without_assumptions_answers_as_with_the_validated_defaults() -> None:
    """A plan given no assumptions uses the shared defaults and answers, to the last character,
    as one given ``Assumptions()``."""
    model = mlcost.model("llama-2-7b")
    layout = Layout(dp=8, zero_stage=1, micro_batch_size=1, global_batch_size=1024)
    shared = Plan(model, system="dgx-h100", layout=layout, tokens=2e12)
    given = Plan(model, system="dgx-h100", layout=layout, tokens=2e12, assumptions=Assumptions())
    assert shared.assumptions is DEFAULT_ASSUMPTIONS
    assert shared.explain() == given.explain()
    assert shared.to_json() == given.to_json()
