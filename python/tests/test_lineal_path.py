"""lineal_path, s2 and reconstruct against the serial C++ reference and NumPy brute force."""

import numpy as np
import pytest

import portacl


@pytest.fixture
def labels(rng):
    # Three labels, blobs of phase 1: segments of every length occur.
    img = rng.integers(0, 3, size=(23, 29))
    img[5:15, 8:20] = 1
    return img


def brute_s2(mask, ml, periodic):
    """S2[ML + dy, ML + dx] by shifting the mask: independent of the FFT."""
    ny, nx = mask.shape
    out = np.zeros((2 * ml + 1, 2 * ml + 1))
    m = mask.astype(np.int64)
    for dy in range(-ml, ml + 1):
        for dx in range(-ml, ml + 1):
            if periodic:
                out[ml + dy, ml + dx] = np.mean(m * np.roll(m, (-dy, -dx), axis=(0, 1)))
            else:
                y0, y1 = max(0, -dy), min(ny, ny - dy)
                x0, x1 = max(0, -dx), min(nx, nx - dx)
                out[ml + dy, ml + dx] = np.mean(m[y0:y1, x0:x1] * m[y0 + dy:y1 + dy, x0 + dx:x1 + dx])
    return out


def brute_horizontal_L(mask, ml, periodic):
    """L along +x: every pixel from p to p + (0, dx) in the phase."""
    ny, nx = mask.shape
    out = []
    for dx in range(ml + 1):
        if periodic:
            run = np.ones_like(mask, bool)
            for k in range(dx + 1):
                run &= np.roll(mask, -k, axis=1).astype(bool)
            out.append(run.mean())
        else:
            run = np.ones((ny, nx - dx), bool)
            for k in range(dx + 1):
                run &= mask[:, k:nx - dx + k].astype(bool)
            out.append(run.mean())
    return np.array(out)


@pytest.mark.parametrize("periodic", [False, True])
def test_lineal_path_2d(ctx, labels, periodic):
    ml = 6
    L = portacl.lineal_path(labels, phase=1, max_length=ml, periodic=periodic, ctx=ctx)
    assert L.shape == (13, 13) and L.dtype == np.float64
    # The counts are exact integers: equal to the reference's, bit for bit.
    count, tried = portacl.lineal_path(labels, phase=1, max_length=ml, periodic=periodic, counts=True, ctx=ctx)
    rcount, rtried = portacl.reference.lineal_path(labels, phase=1, max_length=ml, periodic=periodic, counts=True)
    np.testing.assert_array_equal(count, rcount)
    np.testing.assert_array_equal(tried, rtried)
    np.testing.assert_array_equal(L, count / tried)
    # Horizontal segments have no Bresenham ambiguity: NumPy's shifted products agree exactly.
    np.testing.assert_allclose(L[ml, ml:], brute_horizontal_L(labels == 1, ml, periodic), rtol=1e-15)
    assert L[ml, ml] == pytest.approx(np.mean(labels == 1))


def test_lineal_path_3d(ctx, rng):
    vol = (rng.random((9, 10, 11)) < 0.6).astype(np.uint8)
    L = portacl.lineal_path(vol, max_length=3, periodic=True, ctx=ctx)
    assert L.shape == (7, 7, 7)
    np.testing.assert_array_equal(L, portacl.reference.lineal_path(vol, max_length=3, periodic=True))


@pytest.mark.parametrize("periodic", [False, True])
def test_s2_against_brute_force(ctx, labels, periodic):
    mask = labels == 1
    expected = brute_s2(mask, 5, periodic)
    got = portacl.s2(labels, phase=1, max_length=5, periodic=periodic, precision="float", ctx=ctx)
    assert got.shape == (11, 11)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5)  # float FFT sums: ~1e-6
    np.testing.assert_allclose(portacl.reference.s2(labels, phase=1, max_length=5, periodic=periodic), expected,
                               rtol=1e-14, atol=0)


def test_s2_double(ctx, fp64, labels):
    got = portacl.s2(labels, phase=1, max_length=5, periodic=True, precision="double", ctx=ctx)
    np.testing.assert_allclose(got, brute_s2(labels == 1, 5, True), rtol=0, atol=1e-12)


def test_reconstruct(ctx, labels):
    sample = (labels == 1).astype(np.uint8)
    r = portacl.reconstruct(sample, phase=1, max_length=3, shape=(20, 20), steps=3000, seed=7, ctx=ctx)
    cell = r["image"]
    assert cell.shape == (20, 20) and set(np.unique(cell)) <= {0, 1}
    # The phase fraction is kept by every swap.
    assert cell.sum() == round(sample.mean() * 400)
    # The reported error is that of the cell's own L against the sample's, recomputed independently.
    target = portacl.reference.lineal_path(sample, max_length=3, periodic=True)
    mine = portacl.reference.lineal_path(cell, max_length=3, periodic=True)
    assert r["error"] == pytest.approx(np.sum((mine - target) ** 2), rel=1e-9, abs=1e-12)
    assert r["history"][0][2] >= r["error"]


def test_reconstruct_progress_and_interrupt(ctx, labels):
    sample = (labels == 1).astype(np.uint8)
    args = dict(phase=1, max_length=3, shape=(20, 20), seed=7, ctx=ctx)
    calls = []
    r = portacl.reconstruct(sample, steps=3000, progress=lambda step, total: calls.append((step, total)), **args)
    # Called with increasing steps, last at the chain's end; the chain is the one run without a callback.
    assert calls and all(t == 3000 for _, t in calls) and calls[-1][0] == r["steps"]
    assert [c[0] for c in calls] == sorted(c[0] for c in calls)
    np.testing.assert_array_equal(r["image"], portacl.reconstruct(sample, steps=3000, **args)["image"])

    class Stop(Exception):
        pass

    def stop(step, total):
        raise Stop

    with pytest.raises(Stop):
        portacl.reconstruct(sample, steps=3000, progress=stop, **args)
    # Ctrl-C: SIGINT while a chain far too long to finish runs stops it between batches.
    import os
    import signal
    import threading
    import time
    # Python's own handler, as an interactive session has it: a shell starts a background job with
    # SIGINT ignored, and Python then leaves it ignored.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
        t0 = time.perf_counter()
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            portacl.reconstruct(sample, steps=10 ** 9, **args)
        timer.join()
        assert time.perf_counter() - t0 < 30
    finally:
        signal.signal(signal.SIGINT, previous)


def test_bad_input(ctx, labels):
    with pytest.raises(ValueError):
        portacl.lineal_path(labels, phase=7, max_length=3, ctx=ctx)  # a phase absent from the image
    with pytest.raises(ValueError):
        portacl.lineal_path(labels, max_length=40, ctx=ctx)  # ML beyond the image
    with pytest.raises(ValueError, match="2-D or 3-D"):
        portacl.lineal_path(np.ones(5), max_length=1, ctx=ctx)
    with pytest.raises(TypeError):
        portacl.lineal_path(labels.astype(str), max_length=1, ctx=ctx)
    with pytest.raises(ValueError, match="shape"):
        portacl.reconstruct(labels, max_length=3, shape=(20, 20, 20), steps=10, ctx=ctx)
