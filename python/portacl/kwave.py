"""k-Wave's first-order k-space ultrasound solver: k-Wave's input files, or k-wave-python's objects,
in; its sensor data out as NumPy arrays, optionally its output file too."""

from . import _kwave_objects
from ._portacl import kwave as _kwave
from ._portacl import reference as _reference

_reference_file = _reference.kwave.simulate  # the file-only binding; portacl.reference.kwave.simulate becomes the one below


def _from_objects(run, kgrid, medium, source, sensor, record, precision, storage, start_index, steps, output_file, progress,
                  ctx, pml_size, pml_alpha, pml_inside, smooth_p0):
    if medium is None or source is None:
        raise ValueError("k-wave-python's objects are given as simulate(kgrid, medium, source, sensor)")
    description, layout = _kwave_objects.describe(kgrid, medium, source, sensor, pml_size=pml_size, pml_alpha=pml_alpha,
                                                  pml_inside=pml_inside, smooth_p0=smooth_p0)
    data = run(description, record=_kwave_objects.record_of(sensor, record), precision=precision, storage=storage,
               start_index=_kwave_objects.start_index_of(sensor, start_index), steps=steps, output_file=output_file,
               progress=progress, ctx=ctx)
    return _kwave_objects.to_kwave_layout(data, layout)


def simulate(input, medium=None, source=None, sensor=None, *, record=None, precision="single", storage="full",
             start_index=None, steps=0, output_file=None, progress=None, ctx=None, pml_size=20, pml_alpha=2.0,
             pml_inside=False, smooth_p0=True):
    """Runs a k-Wave simulation: an input file, or k-wave-python's objects.

    ``simulate(path, record=[...])`` runs a k-Wave input file (format 1.2, as k-Wave MATLAB or
    k-wave-python writes it) and returns {dataset name: array} in the layout of k-Wave's output file:
    raw series (samples, sensor points), aggregates (sensor points,), '*_all' and '*_final' the grid
    (Nz, Ny, Nx).

    ``simulate(kgrid, medium, source, sensor)`` takes k-wave-python's kWaveGrid, kWaveMedium, kSource
    and kSensor as ``kspaceFirstOrder(..., backend="cpp")`` does (``pml_size``, ``pml_alpha``,
    ``pml_inside``, ``smooth_p0`` as there: the PML added outside the grid by default, the initial
    pressure smoothed) and returns k-wave-python's layout: time series (sensor points, samples) and
    aggregates (sensor points,) with the points in C order, grid fields (Nx, Ny[, Nz]) without the
    added PML. The sources taken are the medium and the initial pressure ``source.p0``; a sensor
    mask is binary (None: every point of the grid). ``record`` defaults to ``sensor.record``, else
    ['p']; ``start_index`` (0-based) to ``sensor.record_start_index - 1``.

    record: k-Wave's outputs ('p', 'p_rms', 'p_max', 'p_min', 'p_max_all', 'p_min_all', 'p_final', 'u',
    'u_non_staggered', 'u_rms', 'u_max', 'u_min', 'u_max_all', 'u_min_all', 'u_final'); precision
    'single' or 'double'; storage 'full', 'reduced-min', 'reduced-mid' or 'reduced-max' (16-bit
    storage of chosen arrays, single precision); steps: stop after this many (0: Nt); output_file:
    also write k-Wave's output file there. progress(step, total) is called every 16 steps; Ctrl-C
    stops the run between steps (KeyboardInterrupt).
    """
    if _kwave_objects.is_kwave_grid(input):
        return _from_objects(_kwave._simulate_description, input, medium, source, sensor, record, precision, storage,
                             start_index, steps, output_file, progress, ctx, pml_size, pml_alpha, pml_inside, smooth_p0)
    if medium is not None or source is not None or sensor is not None:
        raise TypeError("simulate takes an input file's path, or k-wave-python's kgrid, medium, source and sensor; "
                        f"{type(input).__name__} is not a kWaveGrid")
    return _kwave.simulate(input, record=["p"] if record is None else record, precision=precision, storage=storage,
                           start_index=0 if start_index is None else start_index, steps=steps, output_file=output_file,
                           progress=progress, ctx=ctx)


def reference_simulate(input, medium=None, source=None, sensor=None, *, record=None, start_index=None, steps=0,
                       output_file=None, pml_size=20, pml_alpha=2.0, pml_inside=False, smooth_p0=True):
    """The serial C++ reference of :func:`simulate` (double precision, its own DFT): for small grids.
    Takes an input file or k-wave-python's objects, as :func:`simulate`."""
    if _kwave_objects.is_kwave_grid(input):
        return _from_objects(_reference.kwave._simulate_description, input, medium, source, sensor, record, "double", "full",
                             start_index, steps, output_file, None, None, pml_size, pml_alpha, pml_inside, smooth_p0)
    return _reference_file(input, record=["p"] if record is None else record,
                           start_index=0 if start_index is None else start_index, steps=steps, output_file=output_file)


__all__ = ["simulate"]
