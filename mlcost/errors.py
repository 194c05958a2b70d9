"""mlcost's own exceptions.

Every error a user can cause names the field, the value given and what was expected, and for an
unknown name the closest known names. All derive from :class:`MlcostError`, which derives from
``ValueError`` so that callers that already catch ``ValueError`` keep working.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any


class MlcostError(ValueError):
    """Base class of every error mlcost raises on purpose."""


class RunDoesNotFitError(MlcostError):
    """A run (training or serving) whose memory exceeds its GPU's: an answer, not an input
    error. The command line prints the message on stdout and exits with status 1 (an error
    exits 2); Python raises it where a priced answer was asked of such a run."""


class UnitError(MlcostError):
    """A value is not a quantity, or has the wrong dimension or sign."""

    def __init__(self, field: str, value: Any, expected: str) -> None:
        self.field = field
        self.value = value
        self.expected = expected
        super().__init__(f"{field}: got {value!r}, expected {expected}")


#: A spec error shows at most this many problems (a 2 MB file of unknown keys would otherwise
#: print one line per key), each cut to this many characters.
MAX_PROBLEMS_SHOWN = 10
MAX_PROBLEM_CHARS = 300


class SpecError(MlcostError):
    """A spec (YAML file, config dict) failed validation. One line per problem."""

    def __init__(self, problems: list[str], *, source: str | None = None) -> None:
        self.problems = problems
        self.source = source
        where = f"{source}: " if source else ""
        if len(problems) == 1:
            message = f"{where}{problems[0][: MAX_PROBLEM_CHARS * (MAX_PROBLEMS_SHOWN + 2)]}"
        else:
            shown = [f"  - {p[:MAX_PROBLEM_CHARS]}" for p in problems[:MAX_PROBLEMS_SHOWN]]
            if len(problems) > MAX_PROBLEMS_SHOWN:
                shown.append(f"  - ... and {len(problems) - MAX_PROBLEMS_SHOWN} more")
            message = f"{where}{len(problems)} problems\n" + "\n".join(shown)
        super().__init__(message)


class UnknownNameError(MlcostError, KeyError):
    """A catalog name or alias that is not known, with the closest known names."""

    def __init__(self, what: str, name: str, known: Iterable[str]) -> None:
        self.what = what
        self.name = name
        known = sorted(set(known))
        self.suggestions = closest_names(name, known)
        if self.suggestions:
            hint = f"; did you mean {', '.join(repr(s) for s in self.suggestions)}?"
        elif len(known) <= 16:
            hint = f"; expected one of {', '.join(known)}"
        else:
            hint = ""
        super().__init__(f"unknown {what} {name!r}{hint}")

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0])


class Note(UserWarning):
    """Something a user should know about an answer that is still given (a stated rule, issue
    65): the command line prints each as one ``note:`` line on stderr; Python shows it as a
    warning."""


class UnsourcedSpecNote(Note):
    """A spec file given by the user has numbers without a source. Rule: ``mlcost specs
    validate`` refuses it (exit 2); every other command uses it and says which numbers lack a
    source (the catalog itself refuses an unsourced number)."""


class ForeignGpuNote(Note):
    """A GPU given in place of a node's own that the node neither ships with nor takes
    (``compatible_accelerators``). Rule: used as a what-if, and said."""


class UnmodelledGpuNote(Note):
    """An accelerator the memory model does not describe (a TPU, a Gaudi, a ROCm GPU:
    :func:`mlcost.memory.unmodelled_reason`). Rule: ``fit --gpu all`` and the smallest catalog
    GPU leave it out, and say so; named on its own it is answered with the model, and said."""


class DefaultNameNote(Note):
    """A short name shared by several catalog entries resolved to the one marked its default
    (``default_for``): the message names the entry chosen and the others. The command line prints
    it as one ``note:`` line on stderr; Python shows it once per name (a warning)."""


class DeprecatedOptionWarning(FutureWarning):
    """A command-line option given by an old spelling that goes in the next release (issue 64's
    one grammar: each option name one meaning). The command line prints it as one ``warning:``
    line on stderr and goes on with the new option's value."""


class AmbiguousNameError(MlcostError, KeyError):
    """An alias shared by several catalog entries."""

    def __init__(self, what: str, name: str, candidates: Iterable[str]) -> None:
        self.what = what
        self.name = name
        self.candidates = sorted(candidates)
        super().__init__(f"{what} {name!r} is ambiguous; it may mean: {', '.join(self.candidates)}")

    def __str__(self) -> str:
        return str(self.args[0])


def closest_names(name: str, known: Iterable[str], limit: int = 3) -> list[str]:
    """The known names closest to ``name`` (difflib ratio >= 0.5), best first."""
    lowered = {k.lower(): k for k in known}
    matches = difflib.get_close_matches(name.lower(), list(lowered), n=limit, cutoff=0.5)
    return [lowered[m] for m in matches]
