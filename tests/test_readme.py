"""The README and the docs pages: their Python examples run, their links resolve, and the README
stays a short page with exactly two set-up commands. Docs move with the code."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").glob("*.md"))
DOCUMENTS = [README, *PAGES]

# The pages whose topic is shown with runnable Python examples (the README's tour moved there).
PAGES_WITH_EXAMPLES = (
    "python.md",
    "checkpointing.md",
    "serving.md",
    "finetuning.md",
    "moe.md",
)
# The topic pages the README was split into, each linked from the README.
LINKED_FROM_README = (
    "index.md",
    "setup.md",
    "python.md",
    "cli.md",
    "catalog.md",
    "spec-format.md",
    "counting.md",
    "energy.md",
    "serving.md",
    "finetuning.md",
    "moe.md",
    "checkpointing.md",
    "calibration.md",
    "benchmarks.md",
    "validation.md",
    "validation-table.md",
    "ui.md",
)
README_LIMIT = 12_000  # characters: a page a newcomer reads in minutes
SET_UP_COMMANDS = ("bash scripts/demo.sh", "bash scripts/test.sh")

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", flags=re.S | re.M)
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def fenced(text: str, language: str) -> list[str]:
    """The bodies of the fenced blocks in ``language``, in order."""
    return [body for lang, body in FENCE.findall(text) if lang == language]


def prose(text: str) -> str:
    """The text outside fenced blocks and inline code, where links are links."""
    text = FENCE.sub("", text)
    return re.sub(r"`[^`\n]*`", "", text)


def section(text: str, heading: str) -> str:
    """The body of the ``## heading`` section, up to the next heading of level 1 or 2."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^#{{1,2}} |\Z)", text, re.S | re.M)
    assert match, f"no '## {heading}' section"
    return match.group(1)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text())
    return {slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, flags=re.M)}


def resolves(page: Path, target: str) -> bool:
    """Whether a link written on ``page`` names an existing file (and heading, for an anchor);
    links with a scheme (https:, mailto:) are not checked."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target):
        return True
    file_part, _, anchor = target.partition("#")
    resolved = (page.parent / file_part).resolve() if file_part else page
    if not resolved.exists():
        return False
    return not anchor or resolved.suffix != ".md" or anchor in anchors(resolved)


@pytest.mark.parametrize("path", DOCUMENTS, ids=relative)
def test_python_examples_run(path: Path) -> None:
    """Each file's blocks run in order in one namespace of their own."""
    namespace: dict[str, object] = {"__name__": f"example:{relative(path)}"}
    for number, block in enumerate(fenced(path.read_text(), "python"), start=1):
        code = compile(block, f"{relative(path)} python block {number}", "exec")
        exec(code, namespace)


def test_the_readme_has_one_python_example() -> None:
    assert len(fenced(README.read_text(), "python")) == 1


@pytest.mark.parametrize("name", PAGES_WITH_EXAMPLES)
def test_topic_pages_have_python_examples(name: str) -> None:
    assert fenced((ROOT / "docs" / name).read_text(), "python"), f"docs/{name}: no python block"


def test_the_readme_is_short() -> None:
    assert len(README.read_text()) <= README_LIMIT


def test_the_readme_sets_up_with_two_commands() -> None:
    """The set-up section holds one shell block of exactly the two commands, and both scripts
    exist; CI runs the second."""
    blocks = fenced(section(README.read_text(), "Set up"), "bash")
    assert len(blocks) == 1
    lines = (line.split("#")[0].strip() for line in blocks[0].splitlines())
    commands = [line for line in lines if line]
    assert commands == list(SET_UP_COMMANDS)
    for command in commands:
        assert (ROOT / command.split()[1]).is_file(), command
    assert "bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text()


def test_the_readme_links_every_docs_page() -> None:
    targets = {target for target, _ in LINK.findall(prose(README.read_text()))}
    assert {f"docs/{name}" for name in LINKED_FROM_README} <= targets
    assert {f"docs/{name}" for name in LINKED_FROM_README} == {relative(p) for p in PAGES}


@pytest.mark.parametrize("path", DOCUMENTS, ids=relative)
def test_relative_links_resolve(path: Path) -> None:
    """Every relative link (and image) points to an existing file, and a link's #anchor to a
    heading of the page it names."""
    targets = [link or image for link, image in LINK.findall(prose(path.read_text()))]
    broken = [target for target in targets if not resolves(path, target)]
    assert not broken, f"{relative(path)}: broken links {broken}"


def test_the_link_check_sees_links() -> None:
    """The check above reads links, anchors and images as Markdown writes them."""
    text = "[a](docs/x.md#two-words) ![b](y.png) `[c](z.md)` [d](https://e)\n```\n[f](g.md)\n```\n"
    assert [t for pair in LINK.findall(prose(text)) for t in pair if t] == [
        "docs/x.md#two-words",
        "y.png",
        "https://e",
    ]
    assert slug('Memory and "will it fit?"') == "memory-and-will-it-fit"
    assert slug("What `mlcost bench` measures") == "what-mlcost-bench-measures"


# ----- the README's command-line examples, run (issue 64: its claims re-checked) ---------------
def _shell_examples() -> list[tuple[list[str], list[str]]]:
    """Each ``$ mlcost ...`` text block of the README that shows its output: its arguments and
    the lines it shows (``...`` marks a cut). A block of commands alone (a recipe on files of
    your own) shows none."""
    examples = []
    for body in fenced(README.read_text(), "text"):
        first, *shown = body.rstrip("\n").split("\n")
        recipe = first.endswith("\\") or any(line.startswith("$ ") for line in shown)
        if first.startswith("$ mlcost") and not recipe:
            examples.append((first.split()[2:], [line for line in shown if line != "..."]))
    return examples


SHELL_EXAMPLES = _shell_examples()


def test_the_readme_shows_command_line_examples() -> None:
    assert len(SHELL_EXAMPLES) >= 4


@pytest.mark.parametrize(
    ("arguments", "shown"), SHELL_EXAMPLES, ids=[" ".join(a[:2]) for a, _ in SHELL_EXAMPLES]
)
def test_a_readme_command_prints_what_the_readme_shows(
    arguments: list[str], shown: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.cli.conftest import invoke

    monkeypatch.chdir(tmp_path)  # a figure it writes lands here
    result = invoke(*arguments)
    assert result.exit_code in (0, 1), result.stderr  # an answer ("does not fit" is 1)
    printed = [line.rstrip() for line in result.stdout.splitlines()]
    missing = [line for line in shown if line.rstrip() not in printed]
    assert not missing, f"mlcost {' '.join(arguments)} no longer prints:\n" + "\n".join(missing)
