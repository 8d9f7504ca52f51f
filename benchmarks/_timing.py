"""Timing helper shared by the benchmark scripts."""

import time


def best_time(func, repeat):
    """The shortest wall time of ``repeat`` calls of ``func``, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)
