"""Bad and unusual command lines for the bad-input suite (issue 15): explicit cases from the
issue, then every command crossed with bad values of the options it shares. Each case is an
argv list; the files it names are written into ``folder`` first."""

from __future__ import annotations

import json
import os
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
    write_issue65_inputs(folder)
    cases += [argv for argv, _, _ in issue65_cases(folder)]
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
    # issue 63: pipeline stages and nodes
    ("llama-3-8b", "--pp", "0"), ("llama-3-8b", "--pp", "-1"), ("llama-3-8b", "--pp", "abc"),
    ("llama-3-8b", "--pp", "33"), ("llama-3-70b", "--tp", "8", "--pp", "2"),
    ("llama-3-8b", "--nodes", "0"), ("llama-3-8b", "--gpu", "rtx-4090", "--nodes", "2"),
    ("llama-3-8b", "--pp", "2", "--disaggregated"), ("llama-3-8b", "--pp", "2", "--engine",
    "hf-generate"), ("llama-3-8b", "--ttft", "500ms", "--tpot", "50ms", "--pp", "40"),
    ("llama-3-8b", "--ttft", "500ms", "--tpot", "50ms", "--tp", "3"),
    ("llama-3-8b", "--ttft", "500ms", "--tpot", "50ms", "--nodes", "0"),
    ("llama-3-8b", "--pp", "3", "--json"),
    # expert parallelism (attention data parallel): a dense model, ep other than tp, a search
    ("llama-3-8b", "--ep", "2"), ("mixtral-8x7b", "--tp", "2", "--ep", "0"),
    ("mixtral-8x7b", "--tp", "2", "--ep", "4"),
    ("mixtral-8x7b", "--ttft", "500ms", "--tpot", "50ms", "--ep", "2"),
)  # fmt: skip


#: The checkout (its catalog files are the templates of the bad specs below).
CHECKOUT = Path(__file__).resolve().parents[2]

REFUSED, ANSWERED = "refused", "answered"


#: The files of the issue-65 cases, by role: their names under ``FOLDER/issue65``.
ISSUE65_FILES = {
    "failed_results": "failed_results", "inf_results": "inf_results",
    "a100_results": "a100_results", "above_peak": "above-peak.yaml", "visible": "visible.yaml",
    "unsourced": "unsourced.yaml", "model": "model.yaml", "existing_csv": "existing.csv",
    "existing_yaml": "existing.yaml", "config": "config.json", "fifo": "fifo.yaml",
    "fifo_json": "fifo.json", "huge": "huge.yaml", "missing": "missing",
}  # fmt: skip


def issue65_paths(folder: Path) -> dict[str, Path]:
    """Where :func:`write_issue65_inputs` writes each file."""
    return {role: folder / "issue65" / name for role, name in ISSUE65_FILES.items()}


def write_issue65_inputs(folder: Path) -> dict[str, Path]:
    """The files of :func:`issue65_cases`, by role (issue 65): results folders no profile can
    be fitted from, specs that contradict physics, files an output must not replace, and
    files that are not files."""
    root = folder / "issue65"
    root.mkdir()
    f = issue65_paths(folder)
    header = (
        "family,name,device,format,params,status,median_s,p10_s,p90_s,mean_s,stdev_s,"
        "repeats,flops,bytes,detail\n"
    )
    gemm = (
        'gemm,g,{device},fp32,"{{""m"": 64, ""n"": 64, ""k"": 64}}",{status},{t},{t},{t},{t},0,3,'
        "1e8,1,{d}\n"
    )
    for role, row, metadata in (
        ("failed_results", gemm.format(device="cpu", status="error", t="", d="oom"),
         {"device": "cpu"}),
        ("inf_results", gemm.format(device="cpu", status="ok", t="inf", d=""), {"device": "cpu"}),
        ("a100_results", gemm.format(device="cuda", status="ok", t="1e-3", d=""),
         {"device": "cuda", "gpu": "NVIDIA A100-SXM4-80GB"}),
    ):  # fmt: skip
        f[role].mkdir()
        (f[role] / "results.csv").write_text(header + row)
        (f[role] / "metadata.json").write_text(json.dumps(metadata))
    measured = (CHECKOUT / "specs/measured/h200-sxm-141gb-measured.yaml").read_text()
    f["above_peak"].write_text(
        measured.replace("efficiency: 0.0015539736238891473", "efficiency: 1.5", 1)
    )
    h100 = (CHECKOUT / "specs/accelerators/h100-sxm5-80gb.yaml").read_text()
    f["visible"].write_text(
        h100.replace("memory_capacity: 80 GiB", "memory_capacity: 24 GiB").replace(
            "memory_visible: 81559 MiB", "memory_visible: 100 GiB"
        )
    )
    f["unsourced"].write_text(
        "kind: accelerator\nname: x\nvendor: v\nmemory_capacity: 1 GiB\n"
        "memory_bandwidth: 1 TB/s\ntdp: 1 W\npeak_compute: [{format: bf16, dense: 1 TFLOP/s}]\n"
    )
    f["model"].write_text((CHECKOUT / "specs/models/gpt2.yaml").read_text())
    f["existing_csv"].write_text("mine\n")
    f["existing_yaml"].write_text("mine: 1\n")
    f["config"].write_text(
        json.dumps({"model_type": "gpt2", "n_embd": 64, "n_layer": 2, "n_head": 2,
                    "vocab_size": 100, "n_positions": 64})
    )  # fmt: skip
    os.mkfifo(f["fifo"])
    os.mkfifo(f["fifo_json"])
    with open(f["huge"], "wb") as stream:
        stream.truncate(65 * 2**20)
    return f


def issue65_cases(folder: Path) -> list[tuple[list[str], str, str]]:
    """Issue 65's kinds of bad input, each with the class of answer it must get: ``refused``
    (exit 2, one line naming the field: the fragment) or ``answered`` (exit 0, no NaN or
    infinity printed; the fragment, if any, on stderr: what the answer says it changed or
    what disagrees). The files are :func:`write_issue65_inputs`'s."""
    f = {k: str(v) for k, v in issue65_paths(folder).items()}
    out = str(folder / "issue65" / "new-profile.yaml")
    return [
        # tracebacks: nothing to fit; wrong types reach the formulas (see the API suite)
        (["calibrate", f["failed_results"], "--out", out], REFUSED, "no successful measurement"),
        (["validate", f["failed_results"]], REFUSED, "no successful measurement"),
        # silently wrong
        (["plan", "--system", "dgx-a100", "--explain", "--no-failures"], ANSWERED, ""),
        (["plan", "--ep", "2"], REFUSED, "ep: got 2"),
        (["memory", "gpt2", "--ep", "2"], REFUSED, "ep: got 2"),
        (["plan", "gpt2", "--gpus", "8", "--dp", "8", "--batch", "4", "--global-batch", "100"],
         REFUSED, "global_batch_size"),
        (["plan", "--finetune", "lora", "--lora-rank", "100000"], REFUSED, "rank: got 100000"),
        (["fit", "llama-2-7b", "--finetune", "full", "--freeze", "embeddings,lm_head,norms",
          "--freeze-layers", "32"], REFUSED, "freezes every parameter"),
        (["plan", "gpt2", "--finetune", "lora", "--lora-targets", "gate_proj"], REFUSED,
         "gate_proj"),
        (["memory", "mixtral-8x7b", "--finetune", "lora", "--lora-targets", "q_a_proj"], REFUSED,
         "q_a_proj"),
        (["serve", "bert-base", "--prompt", "128", "--output", "16"], REFUSED, "encoder"),
        (["serve", "llama-3-8b", "--draft", "gpt2", "--acceptance", "0.7"], REFUSED,
         "vocabulary"),
        (["plan", "--gpu-hours", "1"], ANSWERED, "predicts"),
        (["plan", "--gpu-hours", "1", "--json"], ANSWERED, ""),
        (["memory", "gpt2", "--gpu", f["above_peak"]], REFUSED, "x the datasheet peak"),
        (["memory", "gpt2", "--gpu", f["visible"]], REFUSED, "memory_visible"),
        (["calibrate", f["inf_results"], "--out", out], REFUSED, "finite time"),
        (["roofline", "gpt2", "--plot", str(folder / "issue65" / "figure.txt")], REFUSED,
         "expected .png"),
        (["roofline", "gpt2", "--plot", str(Path(f["missing"]) / "figure.png")], REFUSED,
         "does not exist"),
        (["plan", "gpt2", "--plot", str(Path(f["missing"]) / "deeper")], REFUSED,
         "does not exist"),
        (["bench", "--out", str(Path(f["missing"]) / "deeper")], REFUSED, "does not exist"),
        # data loss: an input as an output, an existing file, with and without --force
        (["ops", f["model"], "--csv", f["model"]], REFUSED, "--csv"),
        (["ops", f["model"], "--csv", f["model"], "--force"], REFUSED, "--csv"),
        (["ops", "gpt2", "--csv", f["existing_csv"]], REFUSED, "exists"),
        (["specs", "import-hf", f["config"], "--output", f["config"], "--force"], REFUSED,
         "--output"),
        (["specs", "import-hf", f["config"], "--output", f["existing_yaml"]], REFUSED, "exists"),
        (["calibrate", f["failed_results"], "--out", f["existing_yaml"]], REFUSED, "exists"),
        # unclear
        (["plan", "--price", ".5"], ANSWERED, ""),
        (["plan", "--price", "-2"], REFUSED, "--price"),
        (["serve", "llama-3-8b", "--price", ".5"], ANSWERED, ""),
        (["energy", "--gpu-hours", "10", "--intensity", "57", "--accounting", "bogus"], REFUSED,
         "accounting"),
        (["calibrate", f["a100_results"], "--base", "h100-sxm5-80gb", "--out", out], REFUSED,
         "--base: got h100-sxm5-80gb"),
        (["specs", "validate", f["unsourced"]], REFUSED, "without a source"),
        (["plan", "--system", "dgx-a100", "--gpu", "h100-sxm5-80gb"], ANSWERED, "a what-if"),
        (["memory", "gpt2", "--gpu", f["unsourced"]], ANSWERED, "without a source"),
        # files that are not files: FIFOs, devices, huge files, folders
        (["plan", "--implementation", f["fifo"]], REFUSED, "not a regular file"),
        (["flops", f["fifo"]], REFUSED, "not a regular file"),
        (["memory", "gpt2", "--gpu", f["fifo"]], REFUSED, "not a regular file"),
        (["specs", "import-hf", f["fifo_json"]], REFUSED, "not a regular file"),
        (["flops", f["huge"]], REFUSED, "larger than"),
        (["specs", "validate", f["fifo"]], REFUSED, "not a regular file"),
        (["validate", "--trace", f["fifo_json"], "--model", "gpt2", "--base", "h100-sxm5-80gb"],
         REFUSED, "trace"),
    ]  # fmt: skip


#: Files the issue-65 cases must leave as they were (role: the text written above).
UNCHANGED = ("model", "existing_csv", "existing_yaml", "config")
