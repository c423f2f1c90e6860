"""The GIL is released while the library works: a Python thread keeps running during a device call
and during a serial reference. Without the release the main thread would stall for the whole call."""

import threading
import time

import numpy as np
import pytest

import portacl


def longest_stall(call):
    """Runs call() in a thread while this one ticks; returns (call's seconds, the longest gap between ticks)."""
    done, took = threading.Event(), []

    def work():
        t0 = time.perf_counter()
        call()
        took.append(time.perf_counter() - t0)
        done.set()

    ticks = []
    t = threading.Thread(target=work)
    t.start()
    while not done.is_set():
        ticks.append(time.perf_counter())
        sum(range(200))
    t.join()
    return took[0], max(np.diff(ticks)) if len(ticks) > 1 else float("inf")


@pytest.mark.parametrize("where", ["device", "reference"])
def test_other_threads_run(ctx, rng, where):
    if where == "device":
        x = rng.standard_normal(1 << 23).astype(np.float32)
        portacl.vector_sum(x[:8], x[:8], ctx=ctx)  # the kernel compiled outside the timing
        call = lambda: portacl.vector_sum(x, x, ctx=ctx)  # noqa: E731
    else:
        x = rng.standard_normal(6000) + 0j  # the direct DFT: 36 million terms in long double
        call = lambda: portacl.reference.fft.fftn(x)  # noqa: E731
    seconds, stall = longest_stall(call)
    if seconds < 0.05:
        pytest.skip(f"the call took {seconds:.3f} s, too short to tell")
    assert stall < 0.5 * seconds, f"the main thread stalled {stall:.3f} s during a {seconds:.3f} s call"
