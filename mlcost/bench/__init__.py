"""Microbenchmarks (optional extra ``mlcost[bench]``, PyTorch): measure what a device really
delivers, so that ``mlcost calibrate`` can replace datasheet peaks with measured ceilings.

Run ``mlcost bench --help``; ``docs/benchmarks.md`` explains presets, GPUs and torchrun.
"""
