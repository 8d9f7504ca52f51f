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


def paired_times(baseline, func, repeat):
    """The shortest wall times of ``baseline`` and of ``func`` over
    ``repeat`` rounds, each round timing one call of each in turn, and the
    median of the rounds' ratios ``func / baseline``.  Interleaving keeps a
    change of machine load from favouring either side."""
    pairs = []
    for _ in range(repeat):
        pairs.append((best_time(baseline, 1), best_time(func, 1)))
    ratios = sorted(b / a for a, b in pairs)
    return min(a for a, _ in pairs), min(b for _, b in pairs), ratios[len(ratios) // 2]


def peak_bytes(func):
    """Peak memory traced (tracemalloc) while ``func`` runs, beyond what was
    allocated when it started."""
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    func()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak - base
