"""portacl.drainage against the C++ reference and NumPy brute force."""

import math

import numpy as np
import pytest

import portacl
from portacl import drainage

ROW = [0, -1, -1, -1, 0, 1, 1, 1]  # E, NE, N, NW, W, SW, S, SE
COL = [1, 1, 0, -1, -1, -1, 0, 1]


@pytest.fixture
def dem(rng):
    y, x = np.mgrid[0:24, 0:31]
    return (100 - 0.8 * y + 3 * np.sin(x / 4.0) + rng.normal(0, 0.3, y.shape)).astype(np.float64)


def brute_d8(z, dx, dy):
    out = np.full(z.shape, 8, np.uint8)
    for r in range(z.shape[0]):
        for c in range(z.shape[1]):
            best, arg = 0.0, 8
            for k in range(8):
                rr, cc = r + ROW[k], c + COL[k]
                if 0 <= rr < z.shape[0] and 0 <= cc < z.shape[1] and z[rr, cc] < z[r, c]:
                    dist = math.hypot(dx * COL[k], dy * ROW[k])
                    slope = (z[r, c] - z[rr, cc]) / dist
                    if slope > best:
                        best, arg = slope, k
            out[r, c] = arg
    return out


def brute_accumulation(d):
    """Every cell walks downstream and adds 1 to each cell it passes."""
    acc = np.zeros(d.shape)
    for r in range(d.shape[0]):
        for c in range(d.shape[1]):
            rr, cc = r, c
            while True:
                acc[rr, cc] += 1
                k = d[rr, cc]
                if k >= 8:
                    break
                rr, cc = rr + ROW[k], cc + COL[k]
                if not (0 <= rr < d.shape[0] and 0 <= cc < d.shape[1]):
                    break
    return acc


def test_d8_and_accumulation(ctx, dem):
    gt = (500000.0, 30.0, 0.0, 4100000.0, 0.0, -20.0)  # cells 30 wide, 20 high
    d = drainage.d8(dem, geotransform=gt, ctx=ctx)
    assert d.dtype == np.uint8 and d.shape == dem.shape
    np.testing.assert_array_equal(d, brute_d8(dem, 30.0, 20.0))
    np.testing.assert_array_equal(d, portacl.reference.drainage.d8(dem, geotransform=gt))
    acc = drainage.accumulate(d, ctx=ctx)
    np.testing.assert_array_equal(acc, brute_accumulation(d))
    np.testing.assert_array_equal(acc, portacl.reference.drainage.accumulate(d))
    w = np.linspace(0.5, 2.0, dem.size).reshape(dem.shape)
    np.testing.assert_allclose(drainage.accumulate(d, weights=w, ctx=ctx), portacl.reference.drainage.accumulate(d, weights=w),
                               rtol=0, atol=0)  # the same order of additions: bit for bit


def test_encodings_round_trip(ctx, dem):
    d = drainage.d8(dem, ctx=ctx)
    esri = drainage.d8(dem, encoding="esri", ctx=ctx)
    codes = {0: 1, 1: 128, 2: 64, 3: 32, 4: 16, 5: 8, 6: 4, 7: 2, 8: 0}  # ESRI: 1=E 2=SE 4=S ... 128=NE
    np.testing.assert_array_equal(esri, np.vectorize(codes.get)(d))
    np.testing.assert_array_equal(drainage.accumulate(esri, encoding="esri", ctx=ctx), drainage.accumulate(d, ctx=ctx))
    taudem = drainage.d8(dem, encoding="taudem", ctx=ctx)
    assert taudem.dtype == np.int16


def test_fill_and_watersheds(ctx, dem):
    pitted = dem.copy()
    pitted[10, 10] -= 50  # a pit: filled to its spill height
    filled = drainage.fill_depressions(pitted, ctx=ctx)
    np.testing.assert_array_equal(filled, portacl.reference.drainage.fill_depressions(pitted))
    assert filled[10, 10] > pitted[10, 10] and np.all(filled >= pitted)
    d = drainage.d8(filled, resolve_flats=True, ctx=ctx)
    np.testing.assert_array_equal(d, portacl.reference.drainage.d8(filled, resolve_flats=True))
    ws = drainage.watersheds(d, ctx=ctx)
    np.testing.assert_array_equal(ws, portacl.reference.drainage.watersheds(d))
    one = drainage.watersheds(d, outlets=[(23, 15)], ctx=ctx)
    assert set(np.unique(one)) <= {0, 1} and one[23, 15] == 1


def test_tiles_give_the_one_piece_result(ctx, dem):
    pitted = dem.copy()
    pitted[10, 10] -= 50
    pitted[3:6, 20:23] = -9999
    for tile in (5, (7, 9), "4x6"):
        filled = drainage.fill_depressions(pitted, nodata=-9999, tile=tile, ctx=ctx)
        np.testing.assert_array_equal(filled, drainage.fill_depressions(pitted, nodata=-9999, ctx=ctx))
        d = drainage.d8(filled, nodata=-9999, resolve_flats=True, tile=tile, ctx=ctx)
        np.testing.assert_array_equal(d, drainage.d8(filled, nodata=-9999, resolve_flats=True, ctx=ctx))
        w = np.linspace(0.5, 2.0, dem.size).reshape(dem.shape)
        np.testing.assert_array_equal(drainage.accumulate(d, weights=w, tile=tile, ctx=ctx),
                                      drainage.accumulate(d, weights=w, ctx=ctx))  # bit for bit
        for outlets in (None, [(23, 15), (4, 30)]):
            np.testing.assert_array_equal(drainage.watersheds(d, outlets=outlets, tile=tile, ctx=ctx),
                                          drainage.watersheds(d, outlets=outlets, ctx=ctx))
    with pytest.raises(ValueError, match="tile"):
        drainage.accumulate(d, tile="0x3", ctx=ctx)
    with pytest.raises(ValueError, match="tile"):
        portacl.reference.drainage.accumulate(d, tile=5)


def test_nodata(ctx, dem):
    holed = dem.copy()
    holed[5:8, 5:8] = -9999
    d = drainage.d8(holed, nodata=-9999, ctx=ctx)
    assert np.all(d[5:8, 5:8] == 255)
    acc = drainage.accumulate(d, ctx=ctx)
    assert np.all(np.isnan(acc[5:8, 5:8]))
    np.testing.assert_array_equal(acc, portacl.reference.drainage.accumulate(d))


def test_bad_input(ctx, dem):
    with pytest.raises(ValueError, match="2-D"):
        drainage.d8(dem[0], ctx=ctx)
    with pytest.raises(ValueError, match="6 numbers"):
        drainage.d8(dem, geotransform=(0, 1, 0), ctx=ctx)
    with pytest.raises(ValueError):
        drainage.d8(dem, encoding="arcgis", ctx=ctx)
    cycle = np.full((3, 3), 8, np.uint8)
    cycle[1, 1], cycle[1, 2] = 0, 4  # E then W: a cycle of two cells
    with pytest.raises(ValueError, match="cycle"):
        drainage.accumulate(cycle, ctx=ctx)
    with pytest.raises(ValueError, match="0..7"):
        drainage.accumulate(np.full((3, 3), 9, np.uint8), ctx=ctx)
