"""portacl.kwave.simulate on k-wave-python's objects (kWaveGrid, kWaveMedium, kSource, kSensor),
against k-wave-python's own path: kspaceFirstOrder(..., backend="cpp") writes its HDF5 input file,
runs a k-Wave binary on it (here PortaCL's kspaceFirstOrder-OpenCL, on the same device) and reads
the output file back. The refusals need no k-wave-python (stand-in objects)."""

import os
import types
import warnings

import numpy as np
import pytest

import portacl

pytest.importorskip("h5py")


def import_kwave():
    """k-wave-python's modules, or a skip: it is not a test dependency of the package (it pins its
    own SciPy, OpenCV and Matplotlib, and its first import downloads k-Wave's binaries)."""
    try:
        from kwave.kgrid import kWaveGrid
        from kwave.kmedium import kWaveMedium
        from kwave.ksensor import kSensor
        from kwave.ksource import kSource
        from kwave.kspaceFirstOrder import kspaceFirstOrder
    except ImportError as e:
        pytest.skip(f"k-wave-python is not installed ({e}); pip install k-wave-python to run this test")
    except Exception as e:  # its import downloads binaries; offline that raises URLError
        pytest.skip(f"k-wave-python is installed but its import failed ({type(e).__name__}: {e})")
    return types.SimpleNamespace(kWaveGrid=kWaveGrid, kWaveMedium=kWaveMedium, kSensor=kSensor, kSource=kSource,
                                 kspaceFirstOrder=kspaceFirstOrder)


@pytest.fixture(scope="module")
def kw():
    return import_kwave()


@pytest.fixture(scope="module")
def binary():
    cli = os.environ.get("PORTACL_CLI")
    path = os.path.join(os.path.dirname(cli), "kspaceFirstOrder-OpenCL") if cli else None
    if not path or not os.path.exists(path):
        pytest.skip("kspaceFirstOrder-OpenCL not found beside PORTACL_CLI (scripts/python-package.sh sets it)")
    return path


def case(kw, shape, nt, seed):
    """A heterogeneous, absorbing, nonlinear medium, an initial pressure off the centre and a few
    sensor points placed so that k-Wave's (x fastest) and k-wave-python's (C) orders differ."""
    rng = np.random.default_rng(seed)
    kgrid = kw.kWaveGrid(shape, [1e-4] * len(shape))
    medium = kw.kWaveMedium(sound_speed=1500 + 100 * rng.random(shape), density=1000 + 50 * rng.random(shape),
                            alpha_coeff=0.75, alpha_power=1.5, BonA=6.0)
    kgrid.makeTime(medium.sound_speed)
    kgrid.setTime(nt, kgrid.dt)
    source = kw.kSource()
    p0 = np.zeros(shape)
    p0[tuple(slice(n // 3, n // 3 + 4) for n in shape)] = 1.0
    source.p0 = p0
    mask = np.zeros(shape, bool)
    for _ in range(6):
        mask[tuple(rng.integers(0, n) for n in shape)] = True
    return kgrid, medium, source, kw.kSensor(mask), mask


def f_rows_in_c_order(mask):
    """The permutation taking sensor rows from x-fastest order to C order (written here, not taken
    from the package, to check its layout)."""
    f = np.flatnonzero(mask.ravel(order="F"))
    return np.argsort(np.ravel_multi_index(np.unravel_index(f, mask.shape, order="F"), mask.shape))


def through_kwave_python(kw, binary, ctx, monkeypatch, kgrid, medium, source, sensor, **options):
    monkeypatch.setenv("PORTACL_DEVICE", ctx.device.index)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dtype and sensor.record notes of the cpp backend
        return kw.kspaceFirstOrder(kgrid, medium, source, sensor, backend="cpp", binary_path=binary, quiet=True, **options)


@pytest.mark.parametrize("shape, nt, options", [((48, 40), 60, {"pml_size": 10}),
                                                ((48, 40), 60, {"pml_size": (6, 8), "pml_alpha": 1.5, "pml_inside": True}),
                                                ((20, 18, 16), 24, {"pml_size": 4})])
def test_equals_kwave_pythons_own_file_and_binary_path(kw, binary, ctx, monkeypatch, shape, nt, options):
    kgrid, medium, source, sensor, mask = case(kw, shape, nt, seed=len(shape) + nt)
    theirs = through_kwave_python(kw, binary, ctx, monkeypatch, kgrid, medium, source, sensor, **options)
    ours = portacl.kwave.simulate(kgrid, medium, source, sensor, ctx=ctx, **options)
    assert set(ours) == {"p"}
    # k-wave-python's cpp path returns the output file's (samples, points), points x fastest.
    expected = theirs["p"].reshape(nt, -1).T[f_rows_in_c_order(mask)]
    assert ours["p"].shape == (mask.sum(), nt)
    assert np.abs(ours["p"] - expected).max() <= 1e-5 * np.abs(expected).max()


def test_grid_fields_and_records_match_the_file(kw, ctx, tmp_path):
    shape, nt, pml = (40, 36), 40, 8
    kgrid, medium, source, sensor, mask = case(kw, shape, nt, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        written = kw.kspaceFirstOrder(kgrid, medium, source, sensor, backend="cpp", save_only=True, data_path=str(tmp_path),
                                      pml_size=pml)
    record = ["p", "p_max", "p_final", "p_max_all"]
    from_file = portacl.kwave.simulate(written["input_file"], record=record, start_index=9, ctx=ctx)
    sensor.record = record
    sensor.record_start_index = 10  # 1-based, as k-Wave's -s
    ours = portacl.kwave.simulate(kgrid, medium, source, sensor, pml_size=pml, ctx=ctx)
    rows = f_rows_in_c_order(mask)
    assert ours["p"].shape == (mask.sum(), nt - 9)
    np.testing.assert_allclose(ours["p"], from_file["p"].T[rows], rtol=0, atol=1e-5 * np.abs(from_file["p"]).max())
    np.testing.assert_allclose(ours["p_max"], from_file["p_max"][rows], rtol=0, atol=1e-5 * np.abs(from_file["p_max"]).max())
    for name in ("p_final", "p_max_all"):
        grid = from_file[name][0].T[pml:-pml, pml:-pml]  # (1, Ny, Nx) of the grid with its PML, to (Nx, Ny) without
        assert ours[name].shape == shape
        np.testing.assert_allclose(ours[name], grid, rtol=0, atol=1e-5 * np.abs(grid).max())


def test_reference_takes_the_objects(kw, ctx):
    kgrid, medium, source, sensor, mask = case(kw, (24, 20), 20, seed=7)
    ours = portacl.kwave.simulate(kgrid, medium, source, sensor, pml_size=4, ctx=ctx)
    ref = portacl.reference.kwave.simulate(kgrid, medium, source, sensor, pml_size=4)
    assert ref["p"].shape == ours["p"].shape
    assert np.linalg.norm(ours["p"] - ref["p"]) / np.linalg.norm(ref["p"]) < 2e-4  # the C++ suite's float tolerance


def stand_ins(shape=(16, 16), nt=10):
    """Objects with the attributes k-wave-python documents, for the refusals."""
    grid = types.SimpleNamespace(N=np.array(shape), spacing=np.array([1e-4] * len(shape)), Nt=nt, dt=2e-8, dim=len(shape))
    medium = types.SimpleNamespace(sound_speed=np.array([1500.0]), density=None, sound_speed_ref=None, alpha_coeff=None,
                                   alpha_power=None, alpha_mode=None, alpha_filter=None, alpha_sign=None, BonA=None)
    p0 = np.zeros(shape)
    p0[5, 6] = 1
    source = types.SimpleNamespace(p0=p0, p=None, p_mask=None, ux=None, uy=None, uz=None, u_mask=None)
    sensor = types.SimpleNamespace(mask=np.ones(shape, bool), record=None, record_start_index=1)
    return grid, medium, source, sensor


@pytest.mark.parametrize("change, words", [
    (lambda g, m, s, k: setattr(s, "p", np.zeros((1, 10))), "time-varying sources"),
    (lambda g, m, s, k: setattr(k, "mask", np.array([[0.0, 1e-4], [0.0, 2e-4]])), "Cartesian"),
    (lambda g, m, s, k: setattr(g, "Nt", "auto"), "makeTime"),
    (lambda g, m, s, k: setattr(m, "sound_speed", np.full((15, 16), 1500.0)), "medium.sound_speed has 240"),
    (lambda g, m, s, k: setattr(m, "alpha_mode", "no_dispersion"), "alpha_mode"),
    (lambda g, m, s, k: setattr(k, "mask", np.zeros((16, 16), bool)), "no grid point"),
    (lambda g, m, s, k: setattr(k, "record", ["p", "I_avg"]), "unknown output 'I_avg'"),
    (lambda g, m, s, k: setattr(g, "dim", 1), "2-D and 3-D"),
])
def test_refusals_before_any_work(ctx, change, words):
    grid, medium, source, sensor = stand_ins()
    change(grid, medium, source, sensor)
    with pytest.raises(ValueError, match=words):
        portacl.kwave.simulate(grid, medium, source, sensor, smooth_p0=False, ctx=ctx)


def test_stand_ins_run_and_other_arguments_are_refused(ctx):
    grid, medium, source, sensor = stand_ins()
    out = portacl.kwave.simulate(grid, medium, source, sensor, pml_size=2, pml_inside=True, smooth_p0=False,
                                 record=["p_final"], ctx=ctx)
    assert out["p_final"].shape == (16, 16)
    with pytest.raises(TypeError, match="kWaveGrid"):
        portacl.kwave.simulate("in.h5", medium, ctx=ctx)
    with pytest.raises(ValueError, match="does not fit"):
        portacl.kwave.simulate(grid, medium, source, sensor, pml_size=8, pml_inside=True, smooth_p0=False, ctx=ctx)
