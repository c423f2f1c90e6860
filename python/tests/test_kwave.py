"""portacl.kwave against the serial C++ reference (double precision, its own DFT) and k-Wave's
output file as h5py reads it."""

import os
import subprocess
import sys

import numpy as np
import pytest

import portacl

pytest.importorskip("h5py")
from portacl import kwave  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


@pytest.fixture(scope="module")
def ball_input(tmp_path_factory):
    """The README's 2-D ball example: 32 x 32, 40 steps, heterogeneous, absorbing, nonlinear."""
    path = str(tmp_path_factory.mktemp("kwave") / "ball.h5")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "kwave_example_input.py"), path, "32", "--2d", "--nt", "40"],
                   check=True)
    return path


def relative_l2(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


@pytest.fixture(scope="module")
def reference(ball_input):
    return portacl.reference.kwave.simulate(ball_input, record=["p", "p_max_all", "p_final"])


def test_single_against_the_reference(ctx, ball_input, reference):
    got = kwave.simulate(ball_input, record=["p", "p_max_all", "p_final"], ctx=ctx)
    assert set(got) == {"p", "p_max_all", "p_final"}
    assert got["p"].shape[0] == 40 and got["p"].ndim == 2
    assert got["p_final"].shape == got["p_max_all"].shape == (1, 32, 32)
    for name in got:
        assert got[name].shape == reference[name].shape
        assert relative_l2(got[name], reference[name]) < 2e-4, name  # the C++ suite's float tolerance


def test_double_against_the_reference(ctx, fp64, ball_input, reference):
    got = kwave.simulate(ball_input, record=["p", "p_max_all", "p_final"], precision="double", ctx=ctx)
    for name in got:
        assert relative_l2(got[name], reference[name]) < 1e-10, name


def test_output_file_progress_and_steps(ctx, ball_input, tmp_path):
    import h5py
    seen = []
    out = tmp_path / "out.h5"
    got = kwave.simulate(ball_input, record=["p"], steps=20, output_file=out, progress=lambda t, n: seen.append((t, n)), ctx=ctx)
    assert got["p"].shape[0] == 20
    assert seen and seen[-1] == (20, 20)
    with h5py.File(out, "r") as f:
        np.testing.assert_allclose(np.asarray(f["p"]).reshape(got["p"].shape), got["p"], rtol=1e-6, atol=0)


def test_callback_exception_stops_the_run(ctx, ball_input):
    def stop(t, n):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        kwave.simulate(ball_input, progress=stop, ctx=ctx)


def test_bad_input(ctx, ball_input, tmp_path):
    with pytest.raises(ValueError, match="unknown output"):
        kwave.simulate(ball_input, record=["pressure"], ctx=ctx)
    with pytest.raises(ValueError, match="Nt"):
        kwave.simulate(ball_input, steps=1000, ctx=ctx)
    with pytest.raises(ValueError):
        kwave.simulate(tmp_path / "missing.h5", ctx=ctx)
    with pytest.raises(ValueError, match="single"):
        kwave.simulate(ball_input, precision="double", storage="reduced-min", ctx=ctx)
