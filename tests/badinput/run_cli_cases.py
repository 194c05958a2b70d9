"""Run command lines through mlcost's real entry point in this interpreter and report how each
ended: ``python run_cli_cases.py CASES.json RESULTS.json``. Run by the bad-input suite with the
interpreter of an environment that has exactly mlcost's runtime dependencies.

Every case runs in-process (``sys.argv`` set, stdout and stderr captured, the exit status from
``SystemExit``); an exception that escapes ``main`` is recorded as a traceback."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import sys
import time
import traceback

#: Seconds one case may run before it is recorded as a hang (code "timeout"): a FIFO or an
#: endless stream given as an input must be refused, not waited on.
CASE_SECONDS = 120


class Hang(BaseException):
    """Raised by the alarm in a case that ran past :data:`CASE_SECONDS`."""


def _alarm(signum: int, frame: object) -> None:
    raise Hang


def run(argv: list[str]) -> dict[str, object]:
    from mlcost.cli import main

    out, err = io.StringIO(), io.StringIO()
    code: object = 0
    escaped = ""
    started = time.perf_counter()
    sys.argv = ["mlcost", *argv]
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_SECONDS)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main()
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        except Hang:
            code = "timeout"
        except BaseException:  # the point is to record anything that escapes
            escaped = traceback.format_exc()
            code = "escaped"
        finally:
            signal.alarm(0)
    return {
        "argv": argv,
        "code": code,
        # the whole answer (a plan's JSON is ~30 kB; cut, it would not parse), bounded
        "stdout": out.getvalue()[-400_000:],
        "stderr": err.getvalue()[-4000:],
        "escaped": escaped,
        "seconds": time.perf_counter() - started,
    }


def main() -> None:
    cases_path, results_path = sys.argv[1], sys.argv[2]
    with open(cases_path, encoding="utf-8") as stream:
        cases = json.load(stream)
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ["COLUMNS"] = "200"
    results = [run(argv) for argv in cases]
    with open(results_path, "w", encoding="utf-8") as stream:
        json.dump(results, stream)


if __name__ == "__main__":
    main()
