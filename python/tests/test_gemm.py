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


def test_fast_is_the_profiles_choice(ctx, rng):
    a = rng.standard_normal((70, 33)).astype(np.float32)  # test_float's sizes: its kernels are compiled
    b = rng.standard_normal((33, 45)).astype(np.float32)
    # Float never runs on tensor cores: 'fast' (the default) is the register-blocked kernel, bit for bit.
    np.testing.assert_array_equal(portacl.gemm(a, b, ctx=ctx), portacl.gemm(a, b, kernel="register-blocked", ctx=ctx))
    np.testing.assert_array_equal(portacl.gemm(a, b, kernel="fast", ctx=ctx), portacl.gemm(a, b, ctx=ctx))


def _tensor_capable(device):
    cc = device.compute_capability
    return device.vendor.lower().startswith("nvidia") and cc is not None and float(cc) >= 8.0 and device.fp64


def test_tensor(ctx, rng):
    a = rng.standard_normal((70, 33))
    b = rng.standard_normal((33, 45))
    if not _tensor_capable(ctx.device):
        with pytest.raises(ValueError, match="tensor"):
            portacl.gemm(a, b, kernel="tensor", ctx=ctx)
        with pytest.raises(ValueError, match="tensor"):
            portacl.gemm(a.astype(np.float32), b.astype(np.float32), kernel="tensor", ctx=ctx)
        return
    c = portacl.gemm(a, b, kernel="tensor", ctx=ctx)
    np.testing.assert_allclose(c, portacl.reference.gemm(a, b), rtol=0, atol=1e-12 * np.max(np.abs(a) @ np.abs(b)))


def test_empty_sides(ctx):
    a = np.ones((3, 0), np.float32)
    np.testing.assert_array_equal(portacl.gemm(a, np.ones((0, 2), np.float32), ctx=ctx), np.zeros((3, 2), np.float32))
    assert portacl.gemm(np.ones((0, 4), np.float32), np.ones((4, 5), np.float32), ctx=ctx).shape == (0, 5)


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
