"""orient3d and insphere against the exact serial reference and NumPy's determinants."""

import numpy as np
import pytest

import portacl


@pytest.fixture
def batch(rng):
    # Random points plus integer points on one plane and on one sphere: exact zeros to decide.
    pts = rng.uniform(-100, 100, size=(200, 3)).astype(np.float32)
    plane = np.column_stack([rng.integers(-20, 20, 50), rng.integers(-20, 20, 50), np.zeros(50)]).astype(np.float32)
    sphere = np.array([[5, 0, 0], [-5, 0, 0], [0, 5, 0], [0, -5, 0], [0, 0, 5], [0, 0, -5], [3, 4, 0], [0, 3, 4]], np.float32)
    return np.vstack([pts, plane, sphere])


def numpy_orient3d(p, q):
    a, b, c, d = (p[q[:, i]].astype(np.float64) for i in range(4))
    return np.sign(np.linalg.det(np.stack([a - d, b - d, c - d], axis=1)))


@pytest.mark.parametrize("precision", ["mixed", "double"])
def test_orient3d(ctx, batch, rng, precision):
    if precision == "double" and not ctx.device.fp64:
        pytest.skip("no fp64")
    # Distinct random points (a repeated index is an exact zero that NumPy's determinant misses),
    # then points of the plane z = 0.
    distinct = np.argsort(rng.random((300, 200)), axis=1)[:, :4]
    q = np.vstack([distinct, rng.integers(200, 250, (100, 4))])
    signs, report = portacl.orient3d(batch, q, precision=precision, report=True, ctx=ctx)
    assert signs.dtype == np.int8 and signs.shape == (400,)
    np.testing.assert_array_equal(signs, portacl.reference.orient3d(batch, q))
    # Coplanar integer points: exactly zero (NumPy's float determinant only approximates it).
    assert np.all(signs[300:] == 0)
    # Well-conditioned random queries: NumPy's double determinant gives the same sign.
    np.testing.assert_array_equal(signs[:300], numpy_orient3d(batch, q[:300]))
    assert report["items"] == 400


def test_insphere(ctx, batch, rng):
    base = len(batch) - 8
    q = np.vstack([rng.integers(0, 200, (200, 5)), base + np.array([[0, 2, 4, 1, 6], [0, 2, 4, 1, 7], [1, 3, 5, 0, 6]])])
    signs = portacl.insphere(batch, q, ctx=ctx)
    np.testing.assert_array_equal(signs, portacl.reference.insphere(batch, q))
    assert np.all(signs[200:] == 0)  # five points of one sphere


def test_bad_input(ctx, batch):
    with pytest.raises(TypeError, match="float32"):
        portacl.orient3d(batch.astype(np.float64), np.zeros((1, 4), int), ctx=ctx)
    with pytest.raises(ValueError, match=r"\(Q, 4\)"):
        portacl.orient3d(batch, np.zeros((1, 5), int), ctx=ctx)
    with pytest.raises(ValueError, match="names point"):
        portacl.orient3d(batch, np.full((1, 4), 10_000), ctx=ctx)
    bad = batch.copy()
    bad[0, 0] = np.inf
    with pytest.raises(ValueError, match="not finite"):
        portacl.orient3d(bad, np.zeros((1, 4), int), ctx=ctx)
