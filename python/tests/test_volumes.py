"""skeleton against scikit-image and the C++ reference; box_count against NumPy block sums."""

import numpy as np
import pytest

import portacl


@pytest.fixture
def blob(rng):
    # Two thick rods joined by a slab, with random holes: branches, loops and end points.
    v = np.zeros((14, 18, 20), np.uint8)
    v[3:11, 4:8, 2:18] = 1
    v[3:11, 10:14, 2:18] = 1
    v[5:9, 4:14, 8:12] = 1
    v[rng.random(v.shape) < 0.03] = 0
    return v


def test_skeleton_equals_scikit_image(ctx, blob):
    morphology = pytest.importorskip("skimage.morphology")
    # Lee's 3-D thinning: skeletonize_3d up to scikit-image 0.24, skeletonize(method="lee") after
    lee = getattr(morphology, "skeletonize_3d", None) or (lambda v: morphology.skeletonize(v, method="lee"))
    theirs = lee(blob) > 0
    ours = portacl.skeleton(blob, ctx=ctx)
    assert ours.dtype == bool and ours.shape == blob.shape
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(ours, portacl.reference.skeleton(blob))


def test_skeleton_2d_and_subfields(ctx, blob):
    plane = blob[6] * 7  # any non-zero value is the object
    ours = portacl.skeleton(plane, ctx=ctx)
    assert ours.shape == plane.shape
    np.testing.assert_array_equal(ours, portacl.reference.skeleton(plane))
    sub = portacl.skeleton(blob, method="subfields", ctx=ctx)
    np.testing.assert_array_equal(sub, portacl.reference.skeleton(blob, method="subfields"))
    assert sub.sum() < blob.sum() and not (sub & ~blob.astype(bool)).any()
    ps = portacl.skeleton(blob, method="psimple", ctx=ctx)
    np.testing.assert_array_equal(ps, portacl.reference.skeleton(blob, method="psimple"))
    assert ps.sum() < blob.sum() and not (ps & ~blob.astype(bool)).any()


def test_skeleton_input_dtypes_and_order(ctx, blob):
    # One-byte volumes are read as bytes, others through float64: the same object either way.
    want = portacl.reference.skeleton(blob.astype(np.float64))
    signed = blob.astype(np.int8) * -3
    for v in [blob.astype(bool), signed, np.asfortranarray(blob), blob[:, :, ::-1][:, :, ::-1], blob.astype(np.int32)]:
        np.testing.assert_array_equal(portacl.reference.skeleton(v), want)
    np.testing.assert_array_equal(portacl.skeleton(np.asfortranarray(blob.astype(bool)), ctx=ctx), want)


def numpy_box_counts(v, s, mixed=False):
    """Boxes of side s anchored at voxel 0, the far boxes cut by the edges kept."""
    pad = [(0, -n % s) for n in v.shape]
    obj = np.pad(v.astype(bool), pad)
    inside = np.pad(np.ones(v.shape, bool), pad)
    shape = [n // s for n in obj.shape]
    blocks = lambda a: a.reshape(shape[0], s, shape[1], s, shape[2], s).sum(axis=(1, 3, 5))
    o, n = blocks(obj), blocks(inside)
    return int(np.sum((o > 0) & (o < n))) if mixed else int(np.sum(o > 0))


@pytest.mark.parametrize("count", ["occupied", "mixed"])
def test_box_count(ctx, blob, count):
    r = portacl.box_count(blob, count=count, ctx=ctx)
    np.testing.assert_array_equal(r["sizes"], [1, 2, 4, 8, 16, 32])
    expected = [numpy_box_counts(blob, s, count == "mixed") for s in r["sizes"]]
    np.testing.assert_array_equal(r["counts"], expected)
    ref = portacl.reference.box_count(blob, count=count)
    np.testing.assert_array_equal(r["counts"], ref["counts"])
    assert r["dimension"] == pytest.approx(ref["dimension"], rel=1e-12)
    # The fit over (log s, log N) as NumPy's least squares gives it.
    keep = np.array(r["counts"]) > 0
    s, n = np.log(r["sizes"][keep]), np.log(np.array(r["counts"][keep], float))
    assert r["dimension"] == pytest.approx(-np.polyfit(s, n, 1)[0], rel=1e-9)


def test_box_count_other_sizes_and_offsets(ctx, blob):
    r = portacl.box_count(blob, sizes=[1, 3, 5], offset_average=True, fit=(1, 5), ctx=ctx)
    np.testing.assert_array_equal(r["counts"], [numpy_box_counts(blob, s) for s in (1, 3, 5)])
    ref = portacl.reference.box_count(blob, sizes=[1, 3, 5], offset_average=True, fit=(1, 5))
    np.testing.assert_allclose(r["offset_mean"], ref["offset_mean"], rtol=1e-12)


def test_bad_input(ctx, blob):
    with pytest.raises(ValueError):
        portacl.skeleton(np.zeros((4, 4, 4), np.uint8), ctx=ctx)  # no object voxel
    with pytest.raises(ValueError, match="2-D or 3-D"):
        portacl.skeleton(np.ones(5), ctx=ctx)
    with pytest.raises(ValueError, match="method"):
        portacl.skeleton(blob, method="fast", ctx=ctx)
    with pytest.raises(ValueError):
        portacl.box_count(blob, sizes=[4, 2], ctx=ctx)  # not increasing
    with pytest.raises(ValueError, match="count"):
        portacl.box_count(blob, count="all", ctx=ctx)
