"""portacl.fft against numpy.fft and the direct DFT of the C++ library (portacl.reference.fft), at odd
sizes (15, the prime 17, 7 x 9, 3 x 5 x 7, 9 x 11) in float and double. Relative L2 error at most
1e-5 in float and 1e-12 in double, the bounds of the C++ suite (tests/test_fft.cpp). Each plan is
compiled on first use (seconds on a CPU device), so the tests share a few shapes."""

import numpy as np
import pytest

import portacl
from portacl import fft

TOL = {np.complex64: 1e-5, np.complex128: 1e-12}


def rel(got, want):
    return np.linalg.norm((got - want).ravel()) / np.linalg.norm(np.asarray(want).ravel())


def cplx(rng, shape, dtype):
    return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(dtype)


def needs(ctx, ctype):
    if ctype == np.complex128 and not ctx.device.fp64:
        pytest.skip(f"{ctx.device} has no fp64")


# (shape, axes transformed, dtype): batched 1-D of 15, 3-D of 3 x 5 x 7 in float; the prime 17 and a
# batch of 7 x 9 in double.
COMPLEX = [((4, 15), 1, np.complex64), ((3, 5, 7), 3, np.complex64), ((17,), 1, np.complex128), ((2, 7, 9), 2, np.complex128)]
REAL = [((5, 17), 1, np.complex64), ((9, 11), 2, np.complex128)]


@pytest.mark.parametrize("shape,ndim,ctype", COMPLEX, ids=lambda v: str(v))
def test_complex(ctx, rng, shape, ndim, ctype):
    needs(ctx, ctype)
    x = cplx(rng, shape, ctype)
    axes = tuple(range(-ndim, 0))
    got = fft.fftn(x, ndim, ctx=ctx)
    assert got.dtype == ctype and got.shape == shape
    assert rel(got, np.fft.fftn(x.astype(np.complex128), axes=axes)) < TOL[ctype]
    assert rel(got, portacl.reference.fft.fftn(x, ndim)) < TOL[ctype]
    back = fft.ifftn(got, ndim, ctx=ctx)
    assert rel(back, np.fft.ifftn(got.astype(np.complex128), axes=axes)) < TOL[ctype]
    assert rel(back, portacl.reference.fft.ifftn(got, ndim)) < TOL[ctype]
    assert rel(back, x) < TOL[ctype]


@pytest.mark.parametrize("shape,ndim,ctype", REAL, ids=lambda v: str(v))
def test_real(ctx, rng, shape, ndim, ctype):
    needs(ctx, ctype)
    rtype = np.float32 if ctype == np.complex64 else np.float64
    x = rng.uniform(-1, 1, shape).astype(rtype)
    axes = tuple(range(-ndim, 0))
    half = fft.rfftn(x, ndim, ctx=ctx)
    assert half.dtype == ctype and half.shape == shape[:-1] + (shape[-1] // 2 + 1,)
    assert rel(half, np.fft.rfftn(x.astype(np.float64), axes=axes)) < TOL[ctype]
    assert rel(half, portacl.reference.fft.rfftn(x, ndim)) < TOL[ctype]
    back = fft.irfftn(half, ndim, n=shape[-1], ctx=ctx)
    assert back.dtype == rtype and back.shape == shape
    want = np.fft.irfftn(half.astype(np.complex128), s=shape[-ndim:], axes=axes)
    assert rel(back, want) < TOL[ctype]
    assert rel(back, portacl.reference.fft.irfftn(half, ndim, n=shape[-1])) < TOL[ctype]
    assert rel(back, x) < TOL[ctype]


def test_names_match_numpy(ctx, fp64, rng):
    # The shapes above: their plans are compiled already.
    x = cplx(rng, (4, 15), np.complex64)
    assert rel(fft.fft(x, ctx=ctx), np.fft.fft(x)) < 1e-5
    assert rel(fft.ifft(x, ctx=ctx), np.fft.ifft(x)) < 1e-5
    assert rel(fft.fft(x.real.copy(), ctx=ctx), np.fft.fft(x.real)) < 1e-5  # a float array is made complex
    y = cplx(rng, (2, 7, 9), np.complex128)
    assert rel(fft.fft2(y, ctx=ctx), np.fft.fft2(y)) < 1e-12
    assert rel(fft.ifft2(y, ctx=ctx), np.fft.ifft2(y)) < 1e-12
    r = rng.uniform(-1, 1, (5, 17)).astype(np.float32)
    assert rel(fft.rfft(r, ctx=ctx), np.fft.rfft(r)) < 1e-5
    assert rel(fft.irfft(fft.rfft(r, ctx=ctx), n=17, ctx=ctx), r) < 1e-5
    s = rng.uniform(-1, 1, (9, 11))
    assert rel(fft.rfft2(s, ctx=ctx), np.fft.rfft2(s)) < 1e-12
    assert rel(fft.irfft2(fft.rfft2(s, ctx=ctx), n=11, ctx=ctx), s) < 1e-12


def test_fortran_order_and_views(ctx, rng):
    x = np.asfortranarray(cplx(rng, (7, 5, 3), np.complex64))
    got = fft.fftn(x, ctx=ctx)
    assert got.flags.f_contiguous  # read in place as the C-ordered 3 x 5 x 7 transpose
    assert rel(got, np.fft.fftn(x)) < 1e-5
    view = cplx(rng, (4, 30), np.complex64)[:, ::2]  # strided: copied once
    assert rel(fft.fft(view, ctx=ctx), np.fft.fft(view)) < 1e-5


def test_clfft_backend(ctx, rng):
    x = cplx(rng, (4, 15), np.complex64)
    assert rel(fft.fft(x, backend="clfft", ctx=ctx), np.fft.fft(x)) < 1e-5


def test_bad_input(ctx):
    with pytest.raises(TypeError, match="complex64 or complex128"):
        fft.fft(np.arange(8), ctx=ctx)
    with pytest.raises(TypeError, match="float32 or float64"):
        fft.rfft(np.ones(8, np.complex64), ctx=ctx)
    with pytest.raises(TypeError, match="NumPy array"):
        fft.fft([1, 2, 3], ctx=ctx)
    with pytest.raises(ValueError, match="at most 3 axes"):
        fft.fftn(np.ones((2, 2, 2, 2), np.complex64), ctx=ctx)
    with pytest.raises(ValueError, match="no 2 axes"):
        fft.fft2(np.ones(8, np.complex64), ctx=ctx)
    with pytest.raises(ValueError, match="takes 5 points"):
        fft.irfft(np.ones(4, np.complex64), n=8, ctx=ctx)
    with pytest.raises(ValueError, match="empty"):
        fft.fft(np.ones(0, np.complex64), ctx=ctx)
    with pytest.raises(ValueError, match="backend"):
        fft.fft(np.ones(8, np.complex64), backend="cufft", ctx=ctx)
