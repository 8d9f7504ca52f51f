"""Timing and memory helpers shared by the benchmark scripts."""

import time
import tracemalloc


def best_time(func, repeat):
    """The shortest wall time of ``repeat`` calls of ``func``, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def peak_bytes(func):
    """Peak memory traced (tracemalloc) while ``func`` runs, beyond what was
    allocated when it started."""
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    func()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak - base
