"""Fast Fourier transforms on the device, with numpy.fft's names and conventions.

Each function transforms the last 1, 2 or 3 axes of an array (``fft``/``rfft``: the last one,
``fft2``/``rfft2``: the last two, ``fftn``/``rfftn``: the last ``ndim``, all by default) and treats
the leading axes as a batch. Forward transforms are unscaled, inverse ones scale by 1/N (numpy's
``norm="backward"``); the real transforms keep n // 2 + 1 points along the last axis. complex64 and
float32 arrays run in float, complex128 and float64 in double (the device needs fp64); a float array
given to a complex transform is converted to complex once. ``backend``: 'auto' (the device profile's
choice: FFTW on CPU devices where the build has it, else VkFFT), 'vkfft', 'clfft' (which refuses sizes
with prime factors above 13) or 'fftw' (CPU devices only). See docs/python.md and docs/fft.md.
"""

import numpy as _np

from . import _portacl

_COMPLEX_OF = {_np.dtype(_np.float32): _np.complex64, _np.dtype(_np.float64): _np.complex128}


def _complex(a):
    if isinstance(a, _np.ndarray) and a.dtype in _COMPLEX_OF:
        return a.astype(_COMPLEX_OF[a.dtype])
    return a


def _ndim_of(a, ndim):
    if ndim is None:
        ndim = getattr(a, "ndim", 1)
        if ndim > 3:
            raise ValueError(f"fftn transforms at most 3 axes; a {ndim}-D array needs ndim=1, 2 or 3")
    return ndim


def _c2c(a, ndim, inverse, backend, ctx):
    a = _complex(a)
    # A Fortran-ordered array transformed along all its axes is its transpose in C order: no copy.
    if isinstance(a, _np.ndarray) and a.ndim == ndim and a.flags.f_contiguous and not a.flags.c_contiguous:
        return _portacl._fft(a.T, ndim, "c2c", inverse, 0, backend, ctx).T
    return _portacl._fft(a, ndim, "c2c", inverse, 0, backend, ctx)


def _c2r(a, ndim, n, backend, ctx):
    if n is None:
        n = 2 * (a.shape[-1] - 1)
    return _portacl._fft(a, ndim, "c2r", True, n, backend, ctx)


def fft(a, *, backend="auto", ctx=None):
    """The discrete Fourier transform of the last axis of a complex array (numpy.fft.fft)."""
    return _c2c(a, 1, False, backend, ctx)


def ifft(a, *, backend="auto", ctx=None):
    """The inverse transform of the last axis, scaled by 1/n (numpy.fft.ifft)."""
    return _c2c(a, 1, True, backend, ctx)


def fft2(a, *, backend="auto", ctx=None):
    """The transform of the last two axes (numpy.fft.fft2)."""
    return _c2c(a, 2, False, backend, ctx)


def ifft2(a, *, backend="auto", ctx=None):
    """The inverse transform of the last two axes (numpy.fft.ifft2)."""
    return _c2c(a, 2, True, backend, ctx)


def fftn(a, ndim=None, *, backend="auto", ctx=None):
    """The transform of the last ``ndim`` axes (1 to 3; default all of a 1-D to 3-D array)."""
    return _c2c(a, _ndim_of(a, ndim), False, backend, ctx)


def ifftn(a, ndim=None, *, backend="auto", ctx=None):
    """The inverse transform of the last ``ndim`` axes, scaled by 1/N."""
    return _c2c(a, _ndim_of(a, ndim), True, backend, ctx)


def rfft(a, *, backend="auto", ctx=None):
    """The transform of the last axis of a real array: n // 2 + 1 points (numpy.fft.rfft)."""
    return _portacl._fft(a, 1, "r2c", False, 0, backend, ctx)


def irfft(a, n=None, *, backend="auto", ctx=None):
    """The real inverse of rfft along the last axis; n: the output's length (default 2 (m - 1))."""
    return _c2r(a, 1, n, backend, ctx)


def rfft2(a, *, backend="auto", ctx=None):
    """The real transform of the last two axes (numpy.fft.rfft2)."""
    return _portacl._fft(a, 2, "r2c", False, 0, backend, ctx)


def irfft2(a, n=None, *, backend="auto", ctx=None):
    """The real inverse of rfft2; n: the last axis's real length (default 2 (m - 1))."""
    return _c2r(a, 2, n, backend, ctx)


def rfftn(a, ndim=None, *, backend="auto", ctx=None):
    """The real transform of the last ``ndim`` axes (1 to 3; default all)."""
    return _portacl._fft(a, _ndim_of(a, ndim), "r2c", False, 0, backend, ctx)


def irfftn(a, ndim=None, n=None, *, backend="auto", ctx=None):
    """The real inverse of rfftn; n: the last axis's real length (default 2 (m - 1))."""
    return _c2r(a, _ndim_of(a, ndim), n, backend, ctx)


class _Reference:
    """The serial reference of portacl.fft: a direct DFT in long double, returned in complex128 or
    float64 (slow by design: for small arrays)."""

    @staticmethod
    def fftn(a, ndim=None):
        """The direct DFT of the last ``ndim`` axes (as :func:`portacl.fft.fftn`)."""
        return _portacl.reference._fft(a, _ndim_of(a, ndim), "c2c", False, 0)

    @staticmethod
    def ifftn(a, ndim=None):
        """The direct inverse DFT, scaled by 1/N (as :func:`portacl.fft.ifftn`)."""
        return _portacl.reference._fft(a, _ndim_of(a, ndim), "c2c", True, 0)

    @staticmethod
    def rfftn(a, ndim=None):
        """The half-spectrum of a real array (as :func:`portacl.fft.rfftn`)."""
        return _portacl.reference._fft(a, _ndim_of(a, ndim), "r2c", False, 0)

    @staticmethod
    def irfftn(a, ndim=None, n=None):
        """The real inverse of a half-spectrum (as :func:`portacl.fft.irfftn`)."""
        ndim = _ndim_of(a, ndim)
        return _portacl.reference._fft(a, ndim, "c2r", True, 2 * (a.shape[-1] - 1) if n is None else n)


reference = _Reference()
