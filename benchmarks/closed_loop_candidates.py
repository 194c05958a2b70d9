"""The closed-loop TTFT candidates of ttft63 that were tried on the NIM rows and not shipped
(docs/validation.md, "Ttft63"): prints, per TTFT row, the published figure, mlcost's shipped
prediction and three alternatives, each from the same plan's prefill ``S``, decode step and
iteration (first order: the request rate is not solved again around them):

(a) a request arriving with a completion misses the iteration that has just started and waits
    for it (the decode step less the front end) on top of the mean value analysis;
(b) the mean value analysis with a deterministic prefill, the one in service waited for half,
    ``R(n) = S (1 + Q(n-1)) - U(n-1) S / 2`` with ``U = X S``;
(c) an iteration-level simulation of in-flight batching under genai-perf's closed loop: every
    decoding sequence one token an iteration, waiting prompts admitted first come first served
    up to ``budget`` tokens an iteration (whole, or in chunks), an iteration the decode step of
    its sequences plus its prompt tokens at ``S / P`` each, each client sending its next request
    a front end after its previous one ends; the clients start together (as genai-perf starts
    them) or evenly spread over one cycle; the mean TTFT of the requests sent after ``warm``
    seconds.

Not a test: the published figures come from other software on other machines.
Run: ``.venv/bin/python benchmarks/closed_loop_candidates.py``.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from mlcost.serving.published import case_plan, serving_cases


def mva_deterministic(s: float, z: float, users: int) -> float:
    """(b): the exact recursion with the prefill in service waited for half (deterministic
    service seen at a random instant), ``R(n) = S (1 + Q(n-1)) - X(n-1) S · S / 2``."""
    queue = rate = 0.0
    response = s
    for n in range(1, users + 1):
        response = s * (1 + queue) - rate * s * s / 2
        rate = n / (z + response)
        queue = rate * response
    return response


def simulate(
    users: int, prompt: int, output: int, prefill: float, step: tuple[float, float],
    frontend: float, budget: int, chunked: bool, spread: bool = False,
    horizon: float = 600.0, warm: float = 100.0,
) -> float:  # fmt: skip
    """(c): mean TTFT (s) of ``users`` closed-loop clients (module docstring); ``step`` the
    decode step at one sequence and its growth per further sequence; ``budget`` the tokens an
    iteration takes (the engine's ``prefill_tokens``), ``chunked`` whether a prompt may be
    split across iterations."""
    per_token = prefill / prompt
    cycle = prefill + output * (step[0] + users * step[1])
    arrivals = sorted(((i * cycle / users if spread else 0.0) + frontend / 2, i)
                      for i in range(users))  # fmt: skip
    waiting: deque[list[float]] = deque()  # [client, prompt tokens left, sent at]
    take, room, tokens = 0.0, 0.0, 0.0
    decoding: dict[int, int] = {}
    clock, first_tokens = 0.0, []
    while clock < horizon:
        arrivals.sort()
        while arrivals and arrivals[0][0] <= clock:
            at, client = arrivals.pop(0)
            waiting.append([client, prompt, at - frontend / 2])
        if not waiting and not decoding:
            clock = arrivals[0][0]
            continue
        room, tokens, done_prefill = float(budget - len(decoding)), 0.0, []
        for entry in waiting:
            take = min(entry[1], room) if chunked else (entry[1] if entry[1] <= room else 0)
            if take <= 0:
                break
            entry[1] -= take
            room -= take
            tokens += take
            if entry[1] == 0:
                done_prefill.append(entry)
        decode = step[0] + (len(decoding) - 1) * step[1] if decoding else 0.0
        clock += decode + tokens * per_token
        for client in list(decoding):
            decoding[client] -= 1
            if decoding[client] == 0:
                del decoding[client]
                arrivals.append((clock + frontend, client))
        for entry in done_prefill:
            waiting.remove(entry)
            decoding[int(entry[0])] = output - 1
            if entry[2] >= warm:
                first_tokens.append(clock + frontend / 2 - entry[2])
    return float(np.mean(first_tokens))


def main() -> None:
    rows = [
        c for c in serving_cases()
        if c.get("arrivals") == "closed-loop" and c["quantity"] == "time to first token"
    ]  # fmt: skip
    print(f"{'row':<48} {'published':>9} {'shipped':>16} {'(a)':>16} {'(b)':>16} "
          f"{'(c) together':>16} {'(c) chunked':>16} {'(c) spread':>16}")  # fmt: skip
    for case in rows:
        users, measured = int(case["load"]), float(case["value"])
        plan = case_plan(case, case["engine"], users)
        t = plan.timing(users)
        s, iteration, decode = float(t["prefill"]), float(t["iteration"]), float(t["step"])
        frontend = plan.resolved_engine.request_seconds
        shipped = float(t["ttft"])
        a = shipped + (decode - frontend if users > 1 else 0.0)
        b = mva_deterministic(s, (t["output"] - 1) * iteration + frontend, users) + frontend
        one, two = float(plan.timing(1)["step"]), float(plan.timing(2)["step"])
        budget = plan.resolved_engine.prefill_tokens or 8192
        args = (users, int(case["prompt"]), int(case["output"]), s, (one, two - one), frontend)
        together = simulate(*args, budget=budget, chunked=False)
        chunked = simulate(*args, budget=budget, chunked=True)
        spread = simulate(*args, budget=budget, chunked=False, spread=True)

        cells = " ".join(f"{f'{v * 1e3:7.1f} ({v * 1e3 / measured - 1:+6.1%})':>16}"
                         for v in (shipped, a, b, together, chunked, spread))  # fmt: skip
        print(f"{case['id']:<48} {measured:9.2f} {cells}")


if __name__ == "__main__":
    main()
