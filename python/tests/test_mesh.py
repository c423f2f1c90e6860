"""mesh_intersect against the `portacl mesh-intersect` command on the same file, the serial C++
reference, CGAL (through the library) and the pair count of the data's manifest (CGAL 5.5.1: 81 pairs
for cow.obj), with the vertex and face arrays read by a parser of the test's own."""

import os
import shutil
import subprocess

import numpy as np
import pytest

import portacl

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get("PORTACL_DATA_DIR", os.path.join(HERE, "..", "..", "..", "shared", "data"))

pytestmark = pytest.mark.skipif(not hasattr(portacl, "mesh_intersect"), reason="built without the mesh workload")


def read_obj(path):
    """Vertices and triangles of an OBJ (v and f lines; 1-based, 'v/vt/vn' corners, polygons fanned)."""
    vertices, faces = [], []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "v":
                vertices.append([float(t) for t in parts[1:4]])
            elif parts[0] == "f":
                corners = [int(t.split("/")[0]) - 1 for t in parts[1:]]
                faces += [[corners[0], corners[i], corners[i + 1]] for i in range(1, len(corners) - 1)]
    return np.array(vertices), np.array(faces)


@pytest.fixture(scope="module")
def cow():
    path = os.path.join(DATA, "mesh", "cow.obj")
    if not os.path.isfile(path):
        pytest.skip(f"no sample data at {path} (set PORTACL_DATA_DIR)")
    return path


def _cli():
    path = os.environ.get("PORTACL_CLI") or os.path.join(HERE, "..", "..", os.environ.get("PORTACL_BUILD_DIR", "build"), "portacl")
    return path if os.path.isfile(path) else shutil.which("portacl")


def test_cow_against_command_reference_and_cgal(ctx, cow, tmp_path):
    v, f = read_obj(cow)  # float64 vertices, int64 faces: converted as the reader does
    rv, rf = portacl.read_mesh(cow)
    assert rv.dtype == np.float32 and rf.dtype == np.uint32
    np.testing.assert_array_equal(rv, v.astype(np.float32))
    np.testing.assert_array_equal(rf, f)
    got = portacl.mesh_intersect(v, f, ctx=ctx)
    assert got["pairs"].shape == (81, 2) and got["pairs"].dtype == np.uint32
    assert np.all(got["pairs"][:, 0] < got["pairs"][:, 1])
    np.testing.assert_array_equal(got["faces"], np.unique(got["pairs"]))
    assert got["degenerate"].size == 0 and got["candidates"] >= 81
    ref = portacl.reference.mesh_intersect(v, f)
    np.testing.assert_array_equal(got["pairs"], ref["pairs"])
    np.testing.assert_array_equal(got["pairs"], portacl.reference.mesh_intersect(rv, rf, cgal=True)["pairs"])
    cli = _cli()
    if not cli:
        pytest.skip("no `portacl` command to compare with (set PORTACL_CLI)")
    out = tmp_path / "pairs.txt"
    subprocess.run([cli, "mesh-intersect", cow, "-o", str(out), "--device", ctx.device.index], check=True, capture_output=True)
    lines = [ln for ln in out.read_text().splitlines() if ln and not ln.startswith("#")]
    np.testing.assert_array_equal(got["pairs"], np.array([ln.split() for ln in lines], dtype=np.uint32))


@pytest.mark.parametrize("method", ["grid", "hierarchy", "atomic-list", "matrix"])
def test_methods_agree(ctx, cow, method):
    v, f = portacl.read_mesh(cow)
    want = portacl.mesh_intersect(v, f, ctx=ctx)["pairs"]
    np.testing.assert_array_equal(portacl.mesh_intersect(v, f, method=method, ctx=ctx)["pairs"], want)


def test_analytic_cases(ctx, fp64):
    # Triangle 0 in z = 0; 1 pierces it; 2 lies above it; 3 shares vertex 0 with 0 and its opposite edge
    # stays out of 0's plane except at the shared vertex; 4 has three collinear corners.
    v = np.array([[0, 0, 0], [4, 0, 0], [0, 4, 0],
                  [1, 1, -1], [1, 1, 1], [2, 2, 1],
                  [0, 0, 2], [4, 0, 2], [0, 4, 2],
                  [-1, -1, 1], [-1, 0, 1],
                  [5, 5, 5], [6, 6, 6], [7, 7, 7]], np.float32)
    f = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 9, 10], [11, 12, 13]], np.int32)
    for precision in ["float", "double", "mixed"]:
        r = portacl.mesh_intersect(v, f, precision=precision, ctx=ctx)
        np.testing.assert_array_equal(r["pairs"], [[0, 1]])
        np.testing.assert_array_equal(r["degenerate"], [4])
        assert 0 <= r["float_guesses_wrong"] <= r["undecided"]
    np.testing.assert_array_equal(portacl.reference.mesh_intersect(v, f)["pairs"], [[0, 1]])


def test_touching(ctx, fp64):
    # Triangle 1's corner (1, 1, 0) lies on triangle 0's face, its other corners above: a touch.
    # Triangle 2 passes through triangle 0 (corners on either side of z = 0).
    v = np.array([[0, 0, 0], [4, 0, 0], [0, 4, 0],
                  [1, 1, 0], [1, 1, 3], [2, 1, 3],
                  [3, 0.5, -1], [3, 0.5, 1], [2.5, 0.2, 1]], np.float32)
    f = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8]])
    for precision in ["float", "mixed"] + (["double"] if fp64 else []):
        count = portacl.mesh_intersect(v, f, precision=precision, ctx=ctx)["pairs"]
        np.testing.assert_array_equal(count, [[0, 1], [0, 2]])
        ignore = portacl.mesh_intersect(v, f, precision=precision, touching="ignore", ctx=ctx)["pairs"]
        np.testing.assert_array_equal(ignore, [[0, 2]])
    for cgal in [False, True]:
        np.testing.assert_array_equal(portacl.reference.mesh_intersect(v, f, cgal=cgal, touching="ignore")["pairs"], [[0, 2]])
    with pytest.raises(ValueError, match="touching"):
        portacl.mesh_intersect(v, f, touching="sometimes", ctx=ctx)


def test_bad_input(ctx):
    v = np.zeros((3, 3), np.float32)
    v[1, 0] = v[2, 1] = 1
    f = np.array([[0, 1, 2]])
    with pytest.raises(ValueError, match="outside"):
        portacl.mesh_intersect(v, np.array([[0, 1, 3]]), ctx=ctx)
    with pytest.raises(ValueError, match="outside"):
        portacl.mesh_intersect(v, np.array([[0, -1, 2]]), ctx=ctx)
    with pytest.raises(ValueError, match=r"\(V, 3\)"):
        portacl.mesh_intersect(v[:, :2], f, ctx=ctx)
    with pytest.raises(ValueError, match=r"\(F, 3\)"):
        portacl.mesh_intersect(v, f.ravel(), ctx=ctx)
    with pytest.raises(TypeError, match="integer"):
        portacl.mesh_intersect(v, f.astype(float), ctx=ctx)
    with pytest.raises(TypeError, match="float32 or float64"):
        portacl.mesh_intersect(v.astype(int), f, ctx=ctx)
    bad = v.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError):
        portacl.mesh_intersect(bad, f, ctx=ctx)
    with pytest.raises(ValueError, match="method"):
        portacl.mesh_intersect(v, f, method="octree", ctx=ctx)
    with pytest.raises(ValueError):
        portacl.read_mesh("/nonexistent/mesh.obj")
