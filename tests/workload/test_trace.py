"""Tracing a small custom module (not a transformer) against a hand derivation."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import mlcost  # noqa: E402
from mlcost.errors import MlcostError  # noqa: E402
from mlcost.layout import Layout  # noqa: E402
from mlcost.workload import TrainingConfig, operators  # noqa: E402
from mlcost.workload.trace import trace  # noqa: E402


class TwoLayer(torch.nn.Module):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.act = torch.nn.ReLU()
        self.fc2 = torch.nn.Linear(16, 4)
        self.register_buffer("mix", torch.ones(4, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.act(self.fc1(x))) @ self.mix


def test_hand_derivation() -> None:
    table = trace(TwoLayer(), (torch.randn(5, 8),))
    rows = {op.name: op for op in table.operators}
    # Forward, 2·M·N·K: fc1 2·5·16·8 = 1280; fc2 2·5·4·16 = 640; mix 2·5·3·4 = 120.
    assert rows["fc1"].forward_flops == 1280
    assert rows["fc2"].forward_flops == 640
    assert rows["(top level)"].forward_flops == 120
    assert table.forward_flops.magnitude == 2040
    # Backward: fc1 weight gradient only (x needs none) 1280; fc2 input 640 + weight 640;
    # the product with the buffer: input gradient 2·5·4·3 = 120.
    assert rows["fc1"].backward_weight_flops == 1280
    assert rows["fc1"].backward_input_flops == 0
    assert (rows["fc2"].backward_input_flops, rows["fc2"].backward_weight_flops) == (640, 640)
    assert rows["(top level)"].backward_flops == 120
    assert table.backward_flops.magnitude == 2680
    # Saved for backward (fp32): fc1 saves x (5·8·4 = 160 B); ReLU saves its output
    # (5·16·4 = 320 B), which fc2 also needs (same storage, counted once); the product needs
    # only the buffer operand to form the input gradient, and buffers are not activations.
    assert rows["fc1"].saved_bytes == 160
    assert rows["act"].saved_bytes == 320
    assert rows["fc2"].saved_bytes == 0
    assert rows["fc1"].parameters == 8 * 16 + 16


def test_caller_module_is_untouched() -> None:
    module = TwoLayer()
    trace(module, (torch.randn(5, 8),))
    assert module.fc1.weight.device.type == "cpu"


def test_not_a_module() -> None:
    with pytest.raises(MlcostError, match=r"expected a torch\.nn\.Module"):
        trace(lambda x: x, (torch.randn(2),))


def test_tracing_a_hf_model_agrees_with_the_analytical_table() -> None:
    pytest.importorskip("transformers")
    from tests.oracles import HF_CONFIGS, hf_model

    model = hf_model(HF_CONFIGS["gpt2"])
    ids = torch.zeros(2, 64, dtype=torch.long)
    table = trace(model, {"input_ids": ids, "labels": ids}, depth=1)
    analytical = operators(
        mlcost.model("gpt2"),
        TrainingConfig(sequence_length=64, attention="eager"),
        Layout(micro_batch_size=2),
    )
    traced = table.forward_flops + table.backward_flops
    assert traced == analytical.matmul_flops()  # GEMMs only on both sides: exact
    rows = {op.name: op for op in table.operators}
    # The backbone holds every parameter once (the LM head is tied to its token embedding).
    assert rows["transformer"].parameters == 124_439_808
