"""voronoi against the serial C++ reference and against Voronota's calculate-vertices."""

import os
import shutil
import subprocess

import numpy as np
import pytest

import portacl


@pytest.fixture
def balls(rng):
    # Atoms of a small, dense cluster: radii as carbon, nitrogen and oxygen.
    centres = rng.uniform(0, 9, size=(60, 3))
    radii = rng.choice([1.52, 1.55, 1.70], size=(60, 1))
    return np.hstack([centres, radii])


def assert_same_diagram(got, want, tol):
    (gv, ge), (wv, we) = got, want
    np.testing.assert_array_equal(gv["balls"], wv["balls"])
    for f in "xyzr":
        np.testing.assert_allclose(gv[f], wv[f], rtol=0, atol=tol)
    np.testing.assert_array_equal(ge["balls"], we["balls"])
    np.testing.assert_array_equal(ge["v0"], we["v0"])
    np.testing.assert_array_equal(ge["v1"], we["v1"])


@pytest.mark.parametrize("precision", ["mixed", "double", "float"])
def test_against_the_reference(ctx, balls, precision):
    if precision == "double" and not ctx.device.fp64:
        pytest.skip("no fp64")
    got = portacl.voronoi(balls, precision=precision, ctx=ctx)
    # float decides alone in float: its centres are float's (docs/voronoi.md).
    assert_same_diagram(got, portacl.reference.voronoi(balls), 1e-3 if precision == "float" else 1e-9)
    vertices, edges = got
    assert vertices.dtype.names == ("balls", "x", "y", "z", "r")
    assert edges.dtype.names == ("v0", "v1", "balls", "min_radius")
    assert len(vertices) > 50 and len(edges) > len(vertices)


def test_against_voronota(ctx, balls, tmp_path):
    if not shutil.which("voronota"):
        pytest.skip("voronota is not installed")
    text = "\n".join(" ".join(repr(float(v)) for v in row) for row in balls) + "\n"
    out = subprocess.run(["voronota", "calculate-vertices"], input=text, capture_output=True, text=True, check=True).stdout
    rows = np.array([line.split() for line in out.splitlines() if line.strip()], dtype=float)
    vertices, _ = portacl.voronoi(balls, ctx=ctx)
    np.testing.assert_array_equal(vertices["balls"], rows[:, :4].astype(int))
    np.testing.assert_allclose(np.column_stack([vertices[f] for f in "xyzr"]), rows[:, 4:], rtol=0, atol=1e-6)


@pytest.fixture(scope="module")
def pdb():
    data = os.environ.get("PORTACL_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))
    path = os.path.join(data, "pdb", "1A8O.pdb")
    if not os.path.isfile(path):
        pytest.skip(f"no sample data at {path} (set PORTACL_DATA_DIR)")
    return path


def test_structure_file(ctx, pdb):
    vertices, edges = portacl.voronoi(pdb, ctx=ctx)
    ref_v, ref_e = portacl.reference.voronoi(pdb)
    assert len(vertices) == len(ref_v) == 3294  # docs/voronoi.md: 1A8O, 524 balls, 3294 vertices
    np.testing.assert_array_equal(vertices["balls"], ref_v["balls"])
    np.testing.assert_allclose(vertices["r"], ref_v["r"], rtol=0, atol=1e-9)


@pytest.mark.parametrize("reader", ["gemmi", "Bio.PDB"])
def test_structure_objects(ctx, pdb, reader):
    """A structure read by gemmi or Biopython gives the diagram of the file itself."""
    if reader == "gemmi":
        gemmi = pytest.importorskip("gemmi")
        structure = gemmi.read_structure(pdb)
    else:
        PDB = pytest.importorskip("Bio.PDB")
        structure = PDB.PDBParser(QUIET=True).get_structure("1A8O", pdb)
    vertices, _ = portacl.voronoi(structure, ctx=ctx)
    from_file, _ = portacl.voronoi(pdb, ctx=ctx)
    np.testing.assert_array_equal(vertices["balls"], from_file["balls"])
    # The PDB format's 3 decimals: the writers keep the file's coordinates.
    np.testing.assert_allclose(vertices["r"], from_file["r"], rtol=0, atol=1e-9)


def test_bad_input(ctx, balls):
    with pytest.raises(ValueError, match=r"\(N, 4\)"):
        portacl.voronoi(balls[:, :3], ctx=ctx)
    with pytest.raises(ValueError, match="at least 4"):
        portacl.voronoi(balls[:3], ctx=ctx)
    bad = balls.copy()
    bad[3, 3] = np.nan
    with pytest.raises(ValueError, match="not finite"):
        portacl.voronoi(bad, ctx=ctx)
    bad[3, 3] = -1
    with pytest.raises(ValueError, match="negative"):
        portacl.voronoi(bad, ctx=ctx)
    with pytest.raises(ValueError):
        portacl.voronoi("/nonexistent/file.pdb", ctx=ctx)
