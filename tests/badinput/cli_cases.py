"""Bad and unusual command lines for the bad-input suite (issue 15): explicit cases from the
issue, then every command crossed with bad values of the options it shares. Each case is an
argv list; the files it names are written into ``folder`` first."""

from __future__ import annotations

import json
from pathlib import Path

#: Commands that take a model and the shared training options, with the arguments they need.
MODEL_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("flops",),
    ("ops",),
    ("memory",),
    ("fit",),
    ("step",),
    ("checkpoint", "activations"),
)
#: Bad (or unusual) values of options those commands share.
BAD_OPTIONS: tuple[tuple[str, ...], ...] = (
    ("--seq", "0"),
    ("--seq", "-5"),
    ("--seq", "abc"),
    ("--seq", "1.5"),
    ("--seq", "100000"),
    ("--seq", "99999999999999999999"),
    ("--batch", "0"),
    ("--batch", "-1"),
    ("--batch", "nan"),
    ("--precision", "fp7"),
    ("--precision", ""),
    ("--attention", "sparse"),
    ("--attention-flops", "some"),
    ("--optimizer", "adamw8"),
    ("--window", "0"),
    ("--recompute", "sometimes"),
    ("--recompute", "every-k"),
    ("--recompute-every", "0"),
    ("--accumulation", "0"),
    ("--gpu", "h1000"),
    ("--gpu", ""),
    ("--gpu", "gpt2"),
    ("--nope",),
    ("--json", "--nope"),
    ("--seq",),
    ("--finetune", "dora"),
    ("--finetune", "lora", "--lora-rank", "0"),
    ("--finetune", "lora", "--lora-targets", "qkv"),
    ("--finetune", "lora", "--lora-dropout", "1.5"),
    ("--freeze", "vision"),
    ("--freeze-layers", "-1"),
)
#: Commands that also take the parallel layout options, and bad values of those.
LAYOUT_COMMANDS: tuple[tuple[str, ...], ...] = (("memory",), ("fit",), ("plan",))
BAD_LAYOUT: tuple[tuple[str, ...], ...] = (
    ("--tp", "3"),
    ("--tp", "5"),
    ("--tp", "0"),
    ("--pp", "100"),
    ("--pp", "-2"),
    ("--cp", "7"),
    ("--zero", "4"),
    ("--zero", "-1"),
    ("--vp", "0"),
    ("--global-batch", "0"),
    ("--dp", "1.5"),
    ("--sp",),
)


def write_inputs(folder: Path) -> dict[str, str]:
    """Bad input files, by role."""
    files = {
        "binary": folder / "binary.yaml",
        "latin1": folder / "latin1.yaml",
        "deep": folder / "deep.yaml",
        "duplicate": folder / "duplicate.yaml",
        "infinite": folder / "infinite.yaml",
        "inf_quantity": folder / "inf_quantity.yaml",
        "not_mapping": folder / "list.yaml",
        "empty": folder / "empty.yaml",
        "bad_kind": folder / "kind.yaml",
        "many_keys": folder / "many.yaml",
        "no_hidden": folder / "config.json",
        "bad_json": folder / "broken.json",
        "nan_json": folder / "nan.json",
        "truncated_csv": folder / "truncated" / "results.csv",
        "foreign_csv": folder / "foreign" / "results.csv",
        "bad_params_csv": folder / "badparams" / "results.csv",
        "a_file": folder / "plain.txt",
    }
    files["binary"].write_bytes(b"\xff\xfe\x00\x01binary")
    files["latin1"].write_bytes("name: caf\xe9\n".encode("latin-1"))
    files["deep"].write_text("[" * 5000 + "]" * 5000)
    files["duplicate"].write_text(
        "kind: accelerator\nname: x\nname: y\nvendor: v\nmemory_capacity: 80 GiB\n"
    )
    files["infinite"].write_text(
        "kind: transformer\nname: t\nhidden_size: .inf\nnum_layers: 2\n"
        "num_attention_heads: 2\nvocab_size: 10\nmax_position_embeddings: 8\n"
    )
    files["inf_quantity"].write_text(
        "kind: accelerator\nname: x\nvendor: v\nmemory_capacity: inf GiB\n"
        "memory_bandwidth: 1 TB/s\npeak_compute: []\n"
    )
    files["not_mapping"].write_text("- 1\n- 2\n")
    files["empty"].write_text("")
    files["bad_kind"].write_text("kind: acelerator\nname: x\n")
    files["many_keys"].write_text(
        "kind: accelerator\nname: x\n" + "".join(f"bogus{i}: {i}\n" for i in range(5000))
    )
    files["no_hidden"].write_text(
        json.dumps({"model_type": "llama", "num_hidden_layers": 2, "vocab_size": 100})
    )
    files["bad_json"].write_text('{"model_type": "gpt2", ')
    files["nan_json"].write_text('{"model_type": "gpt2", "n_embd": NaN}')
    for key in ("truncated_csv", "foreign_csv", "bad_params_csv"):
        files[key].parent.mkdir()
    files["truncated_csv"].write_text("family,name,device,format,par")
    files["foreign_csv"].write_text("a,b,c\n1,2,3\n")
    header = (
        "family,name,device,format,params,status,median_s,p10_s,p90_s,mean_s,stdev_s,"
        "repeats,flops,bytes,detail\n"
    )
    files["bad_params_csv"].write_text(header + "gemm,g,cpu,fp32,{not json,ok,x,1,1,1,0,3,1,1,\n")
    files["a_file"].write_text("not a folder\n")
    return {key: str(path) for key, path in files.items()}


def cli_cases(folder: Path) -> list[list[str]]:
    """Every command line of the suite (at least 300)."""
    f = write_inputs(folder)
    long_name = str(folder / ("x" * 20000))
    under_file = str(Path(f["a_file"]) / "out")
    cases: list[list[str]] = [
        # usage errors: unknown command, option, missing argument, wrong type
        ["frobnicate"], ["plan", "--nope"], ["flops"], ["plan", "--gpus", "1.5"],
        ["plan", "--gpus", "0"], ["plan", "--gpus", "-8"], ["plan", "--tokens", "inf"],
        ["plan", "--tokens", "-1"], ["plan", "--tokens", "2Q"], ["plan", "--tokens", "nan"],
        ["plan", "--tokens", ""], ["plan", "--price", "-3"], ["plan", "--price", "aws-p9"],
        ["plan", "gpt2", "--gpu", "v100-sxm2-16gb", "--precision", "fp16-mixed", "--price",
         "aws-p5"],
        ["plan", "--price", "inf"], ["plan", "--purchase", "-1"], ["plan", "--pue", "0.5"],
        ["plan", "--pue", "nan"], ["plan", "--sustained", "1e20"], ["plan", "--sustained", "0"],
        ["plan", "--sustained", "-5"], ["plan", "--seq", "100000"], ["plan", "--tp", "3"],
        ["plan", "--gpu-hours", "-3"], ["plan", "--gpu-hours", "inf"],
        ["plan", "--idle-power", "-3 W"], ["plan", "--idle-power", "3 kg"],
        ["energy", "--gpu-hours", "10", "--intensity", "57", "--idle-power", "1 W",
         "--idle-energy", "1 kWh"],
        ["energy", "--gpu-hours", "10", "--intensity", "57", "--gpus-per-server", "0"],
        ["plan", "--region", "atlantis"], ["plan", "--system", "dgx-z100"],
        ["plan", "--implementation", "jax"], ["plan", "--gpu", "v100-sxm2-16gb"],
        ["plan", "--json", "--seq", "100000"], ["plan", "--plot-dir", under_file],
        ["plan", "--plot-dir", long_name],
        ["memory", "gpt2", "--mini-sequences", "0"], ["memory", "gpt2", "--mini-sequences", "-1"],
        ["memory", "gpt2", "--memory-model", "jax"],
        ["comm", "allreduce", "--ranks", "0"], ["comm", "allreduce", "--ranks", "-1"],
        ["comm", "allreduce", "--ranks", "1", "--json"], ["comm", "allreduce", "--size", "-1GB"],
        ["comm", "allreduce", "--size", "1 parsec"], ["comm", "allreduce", "--size", "inf GB"],
        ["comm", "alltoall", "--nodes", "0"], ["comm", "sendrecv", "--ranks", "3"],
        ["comm", "broadcast", "--target", "nowhere"],
        ["bench", "--device", "tpu"], ["bench", "--format", "fp7"], ["bench", "--only", "gpu"],
        ["bench", "--device", "cuda:x"],
        ["calibrate", f["truncated_csv"]], ["calibrate", f["foreign_csv"]],
        ["calibrate", f["bad_params_csv"]], ["calibrate", str(folder / "missing")],
        ["calibrate", f["a_file"]],
        ["validate", f["truncated_csv"]], ["validate", f["foreign_csv"]],
        ["validate", str(folder / "missing")], ["validate"],
        ["validate", "--published", "--plot", under_file],
        ["roofline", "gpt2", "--plot", under_file], ["roofline", "gpt2", "--plot", long_name],
        ["roofline", "--gpu", "nope"],
        ["specs", "show", "nope"], ["specs", "list", "nope"], ["specs", "validate", f["many_keys"]],
        ["specs", "import-hf", f["no_hidden"]], ["specs", "import-hf", f["bad_json"]],
        ["specs", "import-hf", f["nan_json"]], ["specs", "import-hf", str(folder / "none.json")],
        ["parallel", "gpt2", "--gpus", "0"], ["parallel", "gpt2", "--top", "-1"],
        ["parallel", "gpt2", "--rank-by", "speed"], ["parallel", "gpt2", "--nodes", "0"],
        ["parallel", "gpt2", "--global-batch", "0"], ["parallel", "nope"],
        ["checkpoint", "interval", "--mtbf", "-1h"], ["checkpoint", "interval", "--mtbf", "abc"],
        ["summary", "nope"], ["summary", "gpt2", "--gpu", "nope"],
        ["--version"], ["--help"], [],
    ]  # fmt: skip
    for role in (
        "binary", "latin1", "deep", "duplicate", "infinite", "inf_quantity", "not_mapping",
        "empty", "bad_kind", "many_keys", "no_hidden", "bad_json", "nan_json",
    ):  # fmt: skip
        for command in (["flops"], ["memory"], ["plan"], ["specs", "validate"]):
            cases.append([*command, f[role]])
        cases.append(["memory", "gpt2", "--gpu", f[role]])
    for special in ("/dev/zero", "/dev/null", str(folder), long_name, "", " ", "-"):
        cases.append(["flops", special])
        cases.append(["memory", "gpt2", "--gpu", special])
    for command in MODEL_COMMANDS:
        for option in BAD_OPTIONS:
            cases.append([*command, "gpt2", *option])
    for command in LAYOUT_COMMANDS:
        for option in BAD_LAYOUT:
            cases.append([*command, "gpt2", *option])
    cases += [["serve", *case] for case in SERVE_CASES]
    return cases


#: ``mlcost serve`` (issue 20): bad values of its own options, and a model that does not fit.
SERVE_CASES: tuple[tuple[str, ...], ...] = (
    ("llama-3-8b", "--tp", "3"), ("llama-3-8b", "--tp", "0"), ("llama-3-8b", "--tp", "16"),
    ("llama-3-8b", "--prompt", "0"), ("llama-3-8b", "--prompt", "abc"),
    ("llama-3-8b", "--prompt", "1e30"), ("llama-3-8b", "--output-tokens", "-1"),
    ("llama-3-8b", "--output-tokens", "9000"), ("llama-3-8b", "--rate", "0"),
    ("llama-3-8b", "--rate", "nan"), ("llama-3-8b", "--rate", "2 GB"),
    ("llama-3-8b", "--concurrency", "0"), ("llama-3-8b", "--concurrency", "100000"),
    ("llama-3-8b", "--weights", "fp7"), ("llama-3-8b", "--kv-format", ""),
    ("llama-3-8b", "--draft", "gpt2"), ("llama-3-8b", "--draft", "gpt2", "--acceptance", "2"),
    ("llama-3-8b", "--price", "-1"), ("llama-3-8b", "--region", "atlantis"),
    ("llama-3-70b", "--gpu", "h100-sxm5-80gb"), ("resnet-50",), ("nope",), ("",),
    ("llama-3-8b", "--json", "--tp", "3"),
)  # fmt: skip
