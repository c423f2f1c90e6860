"""gemm against NumPy's product and the serial C++ reference."""

import numpy as np
import pytest

import portacl

KERNELS = ["direct", "tiled", "register-blocked"]


@pytest.mark.parametrize("kernel", KERNELS)
def test_float(ctx, rng, kernel):
    a = rng.standard_normal((70, 33)).astype(np.float32)
    b = rng.standard_normal((33, 45)).astype(np.float32)
    c = portacl.gemm(a, b, kernel=kernel, ctx=ctx)
    assert c.shape == (70, 45) and c.dtype == np.float32
    # Sums of 33 products of unit normals: float's rounding stays far below 1e-4 relative to |A||B|.
    scale = np.abs(a) @ np.abs(b)
    assert np.max(np.abs(c - a.astype(np.float64) @ b) / scale) < 1e-5
    ref = portacl.reference.gemm(a, b)
    assert np.max(np.abs(c - ref) / scale) < 1e-5


@pytest.mark.parametrize("kernel", KERNELS)
def test_double(ctx, fp64, rng, kernel):
    a = rng.standard_normal((31, 64))
    b = rng.standard_normal((64, 17))
    c = portacl.gemm(a, b, kernel=kernel, ctx=ctx)
    assert c.dtype == np.float64
    np.testing.assert_allclose(c, a @ b, rtol=0, atol=1e-12 * np.max(np.abs(a) @ np.abs(b)))


def test_fortran_order_and_views(ctx, rng):
    a = np.asfortranarray(rng.standard_normal((20, 12)).astype(np.float32))
    b = rng.standard_normal((24, 10)).astype(np.float32)[::2]  # a strided view
    np.testing.assert_allclose(portacl.gemm(a, b, ctx=ctx), a @ b, rtol=1e-5, atol=1e-5)


def test_bad_input(ctx):
    a = np.ones((4, 3), np.float32)
    with pytest.raises(ValueError, match=r"\(M, K\)"):
        portacl.gemm(a, a, ctx=ctx)
    with pytest.raises(TypeError, match="one dtype"):
        portacl.gemm(a, np.ones((3, 2)), ctx=ctx)
    with pytest.raises(TypeError, match="NumPy array"):
        portacl.gemm([[1.0]], [[1.0]], ctx=ctx)
    with pytest.raises(ValueError, match="kernel"):
        portacl.gemm(a, np.ones((3, 2), np.float32), kernel="fastest", ctx=ctx)
