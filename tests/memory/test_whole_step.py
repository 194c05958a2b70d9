"""A whole training step of a small GPT on the CPU with AdamW, against PyTorch's MemTracker.

Oracle: ``torch.distributed._tools.mem_tracker.MemTracker`` (parameters, optimizer states,
activations and temporaries at the peak of the second step) and the gradients PyTorch holds
after ``backward()``. Tolerance 5% per category (the issue's); the framework overheads that do
not exist on the CPU (CUDA context, allocator fragmentation) are set to zero.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from torch.distributed._tools.mem_tracker import MemTracker  # noqa: E402

from mlcost.layout import Layout  # noqa: E402
from mlcost.memory import Overheads, memory_breakdown  # noqa: E402
from mlcost.specs import from_hf_config  # noqa: E402
from mlcost.units import Q_  # noqa: E402
from mlcost.workload import TrainingConfig  # noqa: E402
from tests.oracles import hf_model  # noqa: E402

CONFIG = {
    "model_type": "gpt2",
    "n_embd": 128,
    "n_layer": 2,
    "n_head": 4,
    "vocab_size": 1000,
    "n_positions": 256,
    "resid_pdrop": 0.0,
    "embd_pdrop": 0.0,
    "attn_pdrop": 0.0,
}


def test_small_gpt_adamw_step_matches_mem_tracker() -> None:
    model = hf_model(CONFIG, meta=False, seed=0)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    ids = torch.randint(0, 1000, (2, 128))
    tracker = MemTracker()
    tracker.track_external(model, optimizer)
    gradient_bytes = 0
    with tracker:
        for step in range(2):
            loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            gradient_bytes = sum(p.grad.nbytes for p in model.parameters() if p.grad is not None)
            optimizer.step()
            optimizer.zero_grad()
            if step == 0:
                tracker.reset_mod_stats()
    peak = {
        str(k).rsplit(".", 1)[-1]: v
        for k, v in tracker.get_tracker_snapshot("peak")[torch.device("cpu")].items()
    }

    spec = from_hf_config(CONFIG, name="tiny-gpt2")
    breakdown = memory_breakdown(
        spec,
        TrainingConfig(
            sequence_length=128,
            attention="eager",
            precision="fp32",
            optimizer="adamw",
            dropout=False,
        ),
        None,
        Layout(micro_batch_size=2),
        overheads=Overheads(cuda_context=Q_(0, "byte"), fragmentation=0.0),
    )

    def ours(*terms: str) -> float:
        return sum(breakdown.term(t).to("byte").magnitude for t in terms)

    assert ours("weights") == pytest.approx(peak["PARAM"], rel=0.05)
    assert ours("gradients") == pytest.approx(gradient_bytes, rel=0.05)
    # AdamW: exp_avg and exp_avg_sq in FP32 (plus a 4-byte step counter per tensor).
    assert ours("optimizer states") == pytest.approx(peak["OPT"], rel=0.05)
    assert ours("activations", "head activations", "logits and loss (fp32)") == pytest.approx(
        peak["ACT"], rel=0.05
    )
    assert ours("transient backward peak") == pytest.approx(peak["TEMP"], rel=0.05)
