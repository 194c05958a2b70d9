"""The memory model against the ZeRO paper, Korthikanti et al. 2022 and the textbook chapter."""

from __future__ import annotations

import pytest

from mlcost.memory import (
    megatron_activation_bytes_per_layer,
    model_state_bytes_per_parameter,
    zero_model_state_bytes,
)


def total_gb(states: dict[str, object]) -> float:
    return sum(q.to("GB").magnitude for q in states.values())  # type: ignore[attr-defined]


def test_zero_paper_example() -> None:
    # Rajbhandari et al. 2020, Figure 1: Psi = 7.5B, K = 12 (Adam, mixed precision), N_d = 64:
    # baseline 120 GB; P_os 31.4 GB; P_os+g 16.6 GB; P_os+g+p 1.9 GB per GPU.
    per_param = model_state_bytes_per_parameter("fp16-mixed", "adam")
    assert per_param["weights"] + per_param["gradients"] == 4
    assert per_param["master weights"] + per_param["optimizer states"] == 12  # K
    psi, n_d = 7.5e9, 64
    expected = {0: 120.0, 1: 30 + 12 * 7.5 / 64, 2: 15 + 14 * 7.5 / 64, 3: 16 * 7.5 / 64}
    for stage, gigabytes in expected.items():
        states = zero_model_state_bytes(psi, per_param, zero_stage=stage, data_parallel=n_d)
        assert total_gb(states) == pytest.approx(gigabytes, rel=1e-12)
    rounded = [round(expected[s], 1) for s in (1, 2, 3)]
    assert rounded == [31.4, 16.6, 1.9]


def test_korthikanti_table_2_by_hand() -> None:
    # GPT-3 175B layer (Korthikanti et al. 2022, Table 3 config): s = 2048, b = 1, h = 12288,
    # a = 96, t = 8. 5·a·s/h = 5·96·2048/12288 = 80.
    s, b, h, a, t = 2048, 1, 12288, 96, 8
    sbh = s * b * h

    def per_layer(**kwargs: object) -> float:
        return megatron_activation_bytes_per_layer(s, b, h, a, **kwargs).to("byte").magnitude  # type: ignore[arg-type]

    assert per_layer() == sbh * (34 + 80)
    assert per_layer(tensor_parallel=t) == sbh * (10 + 24 / 8 + 80 / 8)
    assert per_layer(tensor_parallel=t, sequence_parallel=True) == sbh * (34 + 80) / 8
    assert per_layer(tensor_parallel=t, recompute="selective") == sbh * (10 + 24 / 8)
    assert per_layer(tensor_parallel=t, sequence_parallel=True, recompute="selective") == (
        sbh * 34 / 8
    )
    assert per_layer(recompute="full") == 2 * sbh
    assert per_layer(flash=True) == sbh * 34  # FlashAttention keeps no score matrix


def test_chapter_gpt2_optimizer_memory_w05() -> None:
    # Chapter W-05: 1.5e9 parameters; FP32: 6 + 6 + 12 = 24 GB; AMP: 3 + 3 + 6 + 12 = 24 GB.
    fp32 = zero_model_state_bytes(
        1.5e9, model_state_bytes_per_parameter("fp32", "adam"), zero_stage=0, data_parallel=1
    )
    assert {k: round(v.to("GB").magnitude, 6) for k, v in fp32.items()} == {
        "weights": 6.0,
        "gradients": 6.0,
        "master weights": 0.0,
        "optimizer states": 12.0,
    }
    amp = zero_model_state_bytes(
        1.5e9, model_state_bytes_per_parameter("fp16-mixed", "adam"), zero_stage=0, data_parallel=1
    )
    assert {k: round(v.to("GB").magnitude, 6) for k, v in amp.items()} == {
        "weights": 3.0,
        "gradients": 3.0,
        "master weights": 6.0,
        "optimizer states": 12.0,
    }
    assert total_gb(fp32) == pytest.approx(24.0) == total_gb(amp)


def test_chapter_7b_on_24gb_w10() -> None:
    # Chapter W-10: 7B, FP16 weights and gradients (no master copy), Adam 8 B/param:
    # 14 + 14 + 56 = 84 GB, which exceeds 24 GB.
    states = zero_model_state_bytes(
        7e9, model_state_bytes_per_parameter("bf16", "adam"), zero_stage=0, data_parallel=1
    )
    assert [
        round(states[k].to("GB").magnitude, 6) for k in ("weights", "gradients", "optimizer states")
    ] == [14, 14, 56]
    assert total_gb(states) == pytest.approx(84.0)


def test_chapter_v100_walkthrough_w20() -> None:
    # Chapter W-20 with the chapter's own activation input (65 GB in FP32, hard-coded there):
    # FP32 89.0 GB -> AMP 56.5 GB -> every-4-layers checkpointing 32.125 GB.
    activations_fp32_gb = 65.0
    fp32 = total_gb(
        zero_model_state_bytes(
            1.5e9, model_state_bytes_per_parameter("fp32", "adam"), zero_stage=0, data_parallel=1
        )
    )
    amp = total_gb(
        zero_model_state_bytes(
            1.5e9,
            model_state_bytes_per_parameter("fp16-mixed", "adam"),
            zero_stage=0,
            data_parallel=1,
        )
    )
    assert fp32 + activations_fp32_gb == pytest.approx(89.0)
    amp_total = amp + activations_fp32_gb * 2 / 4
    assert amp_total == pytest.approx(56.5)
    assert (1 - amp_total / 89.0) * 100 == pytest.approx(36.517, abs=1e-3)  # "37%"
    checkpointed = amp + activations_fp32_gb * 2 / 4 / 4
    assert checkpointed == pytest.approx(32.125)
    # 32.125 GB fits a "32 GB" V100 only because that is 32 GiB = 34.36 GB (chapter D-10/D-12).
    assert checkpointed < 32 * 2**30 / 1e9
