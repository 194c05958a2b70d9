"""Serving cost: the KV cache, the forward-only workload of prefill and decode, their time on
the roofline, latency and throughput, capacity, and dollars, energy and CO2e per million tokens.
"""

from mlcost.serving.kv_cache import kv_bytes_per_token, kv_cache_bytes
from mlcost.serving.plan import ServePlan
from mlcost.serving.workload import decode_operators, forward_operators, prefill_operators

__all__ = [
    "ServePlan",
    "decode_operators",
    "forward_operators",
    "kv_bytes_per_token",
    "kv_cache_bytes",
    "prefill_operators",
]
