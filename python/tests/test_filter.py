"""filter against the serial C++ reference (exact on integer images) and against OpenCV."""

import numpy as np
import pytest

import portacl

cv2 = pytest.importorskip("cv2")


@pytest.fixture
def picture(rng):
    # A smooth picture with noise: every operation has something to do.
    y, x = np.mgrid[0:61, 0:83]
    base = 128 + 60 * np.sin(x / 7.0) * np.cos(y / 5.0)
    return np.clip(base + rng.normal(0, 12, base.shape), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("ops", [["median:5"], ["box:3", "sobel"], ["gaussian:9:2"], ["laplace:4"], ["rotating"]])
def test_integer_images_equal_the_reference(ctx, picture, ops):
    out = portacl.filter(picture, ops, ctx=ctx)
    np.testing.assert_array_equal(out, portacl.reference.filter(picture, ops))


@pytest.mark.parametrize("border", ["constant", "replicate", "reflect", "reflect101", "wrap"])
def test_against_opencv(ctx, picture, border):
    code = getattr(cv2, "BORDER_" + {"reflect101": "REFLECT_101"}.get(border, border.upper()))
    if border != "wrap":  # OpenCV's medianBlur has its own border (replicate); blur takes any but wrap
        np.testing.assert_array_equal(portacl.filter(picture, "median:3", border="replicate", ctx=ctx),
                                      cv2.medianBlur(picture, 3))
        # OpenCV's box filter rounds its fixed-point sum; within one grey level (docs/filter.md).
        ours = portacl.filter(picture, "box:5", border=code, ctx=ctx).astype(int)
        assert np.abs(ours - cv2.blur(picture, (5, 5), borderType=code).astype(int)).max() <= 1


def test_channels_and_float_images(ctx, rng):
    rgb = (rng.random((20, 30, 3)) * 255).astype(np.uint8)
    out = portacl.filter(rgb, "median:3", ctx=ctx)
    assert out.shape == rgb.shape and out.dtype == np.uint8
    np.testing.assert_array_equal(out, portacl.reference.filter(rgb, "median:3"))
    f = rng.random((25, 19)).astype(np.float32)
    out = portacl.filter(f, ["gaussian:5", "sobel"], ctx=ctx)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, portacl.reference.filter(f, ["gaussian:5", "sobel"]), rtol=1e-5, atol=1e-5)


def test_bad_input(ctx, picture):
    with pytest.raises(ValueError, match="unknown border"):
        portacl.filter(picture, "box:3", border="mirror", ctx=ctx)
    with pytest.raises(ValueError):
        portacl.filter(picture, "box:4", ctx=ctx)  # even window
    with pytest.raises(ValueError):
        portacl.filter(picture, "no-such-op", ctx=ctx)
    with pytest.raises(TypeError, match="uint8, uint16 or float32"):
        portacl.filter(picture.astype(np.int64), "box:3", ctx=ctx)
    with pytest.raises(ValueError, match="channels"):
        portacl.filter(np.zeros((4, 4, 5), np.uint8), "box:3", ctx=ctx)
    with pytest.raises(ValueError, match="OpenCV"):
        portacl.filter(picture, "box:3", border=7, ctx=ctx)
