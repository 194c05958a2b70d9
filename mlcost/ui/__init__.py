"""``mlcost ui``: a local page where every answer moves with the inputs (the ``ui`` extra).

One page, three questions (train, serve, fit), answered by the public API (:class:`mlcost.Plan`,
:class:`mlcost.ServePlan`, :func:`mlcost.finetuning_fit`) and drawn as server-rendered HTML with
inline SVG. :mod:`mlcost.ui.app` (Starlette and uvicorn, the extra's dependencies) is the only
module that needs them; :mod:`mlcost.ui.report` writes the static report of ``mlcost plan
--html`` with the standard library alone. See docs/ui.md.
"""

from __future__ import annotations
