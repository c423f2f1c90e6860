"""k-wave-python's objects (kWaveGrid, kWaveMedium, kSource, kSensor) as the description of a k-Wave
input file, and the recorded data back in k-wave-python's layout.

The description is what k-wave-python's ``kspaceFirstOrder(..., backend="cpp")`` writes into its
HDF5 input file, built from the objects' documented attributes: the grid expanded by the PML on
every side unless ``pml_inside``, the medium's arrays extended by their edge values into it, the
initial pressure and the sensor mask padded with zeros, the initial pressure smoothed by k-Wave's
``smooth`` (``kwave.utils.filters.smooth``, restoring the maximum) unless ``smooth_p0=False``, the
density on the staggered grids as the mean of each point and its neighbour along the axis (the grid
is periodic), the reference sound speed the medium's ``sound_speed_ref`` or else the largest sound
speed. Arrays of k-wave-python are indexed (x, y, z); k-Wave's files hold them x fastest.
"""

import numpy as np

_GRID_SUFFIXES = ("_all", "_final")


def is_kwave_grid(obj):
    """A kWaveGrid, or anything with its attributes (N, spacing, Nt, dt)."""
    return all(hasattr(obj, a) for a in ("N", "spacing", "Nt", "dt"))


def _per_axis(value, dim, name, kind):
    values = np.atleast_1d(np.asarray(value, dtype=float)).ravel()
    if values.size == 1:
        values = np.repeat(values, dim)
    if values.size != dim:
        raise ValueError(f"{name} takes one value or {dim} (one per axis), not {values.size}")
    if not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ValueError(f"{name} must be finite and zero or more, not {value!r}")
    if kind is int and np.any(values != np.round(values)):
        raise ValueError(f"{name} counts grid points: whole numbers, not {value!r}")
    return tuple(kind(v) for v in values)


def _refuse_unsupported(medium, source, sensor, dim):
    for name in ("p", "ux", "uy", "uz", "sxx", "syy", "szz", "sxy", "sxz", "syz"):
        if getattr(source, name, None) is not None:
            raise ValueError(
                f"source.{name} is set: time-varying sources are not taken from k-wave-python's objects (k-wave-python's "
                "two file writers disagree on their scaling: kspaceFirstOrder2D/3D scale them to k-Wave's units, "
                "kspaceFirstOrder(backend='cpp') writes them as given); write the input file with k-wave-python and "
                "pass its path to portacl.kwave.simulate")
    mode = getattr(medium, "alpha_mode", None)
    if mode is not None and getattr(mode, "value", mode) != "stokes":
        raise ValueError(f"medium.alpha_mode is {getattr(mode, 'value', mode)!r}; k-Wave's C++ solvers, and this one, model "
                         "the full power-law absorption and dispersion, or Stokes absorption ('stokes')")
    for name in ("alpha_filter", "alpha_sign"):
        if getattr(medium, name, None) is not None:
            raise ValueError(f"medium.{name} is set; k-Wave's C++ solvers, and this one, model the full power-law "
                             "absorption and dispersion only")
    if sensor is not None and getattr(sensor, "mask", None) is not None:
        mask = np.asarray(sensor.mask)
        if mask.ndim == 2 and mask.shape[0] == dim and mask.dtype.kind == "f":
            raise ValueError("sensor.mask holds Cartesian points; give a binary mask of the grid's shape "
                             "(kwave.utils.conversion.cart2grid makes one)")


def describe(kgrid, medium, source, sensor, *, pml_size=20, pml_alpha=2.0, pml_inside=False, smooth_p0=True):
    """The k-Wave description of the objects (a dict of the input file's datasets, indices 0-based,
    grid arrays x fastest) and what turns the run's output into k-wave-python's layout."""
    dim = int(kgrid.dim)
    if dim not in (2, 3):
        raise ValueError(f"k-Wave's C++ solvers, and this one, run 2-D and 3-D grids, not {dim}-D")
    if isinstance(kgrid.Nt, str) or isinstance(kgrid.dt, str):
        raise ValueError("kgrid's time steps are not set: call kgrid.makeTime(medium.sound_speed) or kgrid.setTime(Nt, dt) first")
    shape = tuple(int(n) for n in np.asarray(kgrid.N).ravel()[:dim])
    spacing = tuple(float(d) for d in np.asarray(kgrid.spacing).ravel()[:dim])
    nt, dt = int(kgrid.Nt), float(kgrid.dt)
    if nt < 1 or not dt > 0:
        raise ValueError(f"kgrid needs Nt >= 1 and dt > 0, not Nt = {nt} and dt = {dt}")
    pml = _per_axis(pml_size, dim, "pml_size", int)
    alpha = _per_axis(pml_alpha, dim, "pml_alpha", float)
    for n, p, axis in zip(shape, pml, "xyz"):
        if pml_inside and 2 * p >= n:
            raise ValueError(f"the PML of {p} points on each side does not fit the {n} points along {axis}")
    _refuse_unsupported(medium, source, sensor, dim)

    pad = tuple(0 for _ in pml) if pml_inside else pml
    full = tuple(n + 2 * p for n, p in zip(shape, pad))

    def grid_array(value, name, padding):
        arr = np.asarray(value, dtype=np.float64)
        if arr.size == 1:
            return arr.reshape(1)
        if arr.size != int(np.prod(shape)):
            raise ValueError(f"{name} has {arr.size} values; the grid has {' x '.join(map(str, shape))} points")
        arr = arr.reshape(shape)
        if any(pad):
            arr = np.pad(arr, [(p, p) for p in pad], mode="edge") if padding == "edge" else np.pad(arr, [(p, p) for p in pad])
        return arr

    def flat(arr):
        return np.ascontiguousarray(arr.ravel(order="F"), dtype=np.float32)

    if medium.sound_speed is None:
        raise ValueError("medium.sound_speed is not set")
    c0 = grid_array(medium.sound_speed, "medium.sound_speed", "edge")
    rho0 = grid_array(1000.0 if medium.density is None else medium.density, "medium.density", "edge")
    ref = getattr(medium, "sound_speed_ref", None)
    if ref is None or (isinstance(ref, str) and ref == "max"):
        c_ref = float(np.max(c0))
    elif isinstance(ref, str):
        if ref not in ("min", "mean"):
            raise ValueError(f"medium.sound_speed_ref is '{ref}'; k-Wave takes a speed, 'min', 'max' or 'mean'")
        c_ref = float(np.min(c0) if ref == "min" else np.mean(c0))
    else:
        c_ref = float(ref)

    d = {"Nx": full[0], "Ny": full[1], "Nz": full[2] if dim == 3 else 1, "Nt": nt, "dt": dt,
         "dx": spacing[0], "dy": spacing[1], "dz": spacing[2] if dim == 3 else 1.0, "c_ref": c_ref,
         "pml_size": list(pml) + [0] * (3 - dim), "pml_alpha": list(alpha) + [0.0] * (3 - dim),
         "c0": flat(c0), "rho0": flat(rho0)}
    for axis, name in enumerate(("rho0_sgx", "rho0_sgy", "rho0_sgz")[:dim]):
        d[name] = flat(rho0 if rho0.size == 1 else 0.5 * (rho0 + np.roll(rho0, -1, axis=axis)))

    bona = getattr(medium, "BonA", None)
    if bona is not None and np.any(np.asarray(bona) != 0):
        d["BonA"] = flat(grid_array(bona, "medium.BonA", "edge"))
    alpha_coeff = getattr(medium, "alpha_coeff", None)
    if alpha_coeff is None or np.all(np.asarray(alpha_coeff) == 0):
        d["absorbing_flag"] = 0
    else:
        stokes = getattr(getattr(medium, "alpha_mode", None), "value", getattr(medium, "alpha_mode", None)) == "stokes"
        if medium.alpha_power is None and not stokes:
            raise ValueError("medium.alpha_coeff is set without medium.alpha_power")
        power = 2.0 if stokes else float(np.asarray(medium.alpha_power).ravel()[0])
        d["absorbing_flag"] = 2 if abs(power - 2.0) < 1e-10 else 1  # 2: Stokes absorption
        d["alpha_coeff"] = flat(grid_array(alpha_coeff, "medium.alpha_coeff", "edge"))
        d["alpha_power"] = power

    p0 = getattr(source, "p0", None)
    if p0 is not None and np.any(np.asarray(p0) != 0):
        if np.asarray(p0).size == 1:
            raise ValueError("source.p0 must have the grid's shape, not one value")
        p0 = grid_array(p0, "source.p0", 0)
        if smooth_p0:
            from kwave.utils.filters import smooth  # k-wave-python is there: its objects were given
            p0 = smooth(p0, restore_max=True)
        d["p0_source_input"] = flat(p0)

    mask = None if sensor is None else getattr(sensor, "mask", None)
    if mask is None:  # every point of the grid given (not of the PML added around it)
        mask = np.ones(shape, dtype=bool)
    mask = np.asarray(mask)
    if mask.size != int(np.prod(shape)):
        raise ValueError(f"sensor.mask has {mask.size} values; the grid has {' x '.join(map(str, shape))} points")
    mask = mask.reshape(shape) != 0
    if not mask.any():
        raise ValueError("sensor.mask selects no grid point")
    if any(pad):
        mask = np.pad(mask, [(p, p) for p in pad])
    index = np.flatnonzero(mask.ravel(order="F"))  # k-Wave's order: x fastest
    d["sensor_mask_index"] = index.astype(np.uint64)
    # k-wave-python gives sensor points in C order (z fastest): the row of each.
    c_index = np.ravel_multi_index(np.unravel_index(index, full, order="F"), full)
    layout = {"dim": dim, "full": full, "pad": pad, "order": np.argsort(c_index, kind="stable")}
    return d, layout


def record_of(sensor, record):
    """The outputs to record: ``record`` if given, else the sensor's ``record`` list, else 'p'."""
    if record is not None:
        return list(record)
    wanted = None if sensor is None else getattr(sensor, "record", None)
    return list(wanted) if wanted is not None else ["p"]


def start_index_of(sensor, start_index):
    """0-based first recorded step: ``start_index`` if given, else the sensor's 1-based record_start_index."""
    if start_index is not None:
        return int(start_index)
    first = 1 if sensor is None else getattr(sensor, "record_start_index", 1)
    first = 1 if first is None else int(first)
    if first < 1:
        raise ValueError(f"sensor.record_start_index is 1-based: 1 or more, not {first}")
    return first - 1


def to_kwave_layout(data, layout):
    """k-Wave's output layout to k-wave-python's: time series (sensor points, samples) and aggregates
    (sensor points,) with the points in C order; grid fields (Nx, Ny[, Nz]) without the PML added."""
    out = {}
    dim, full, pad, order = layout["dim"], layout["full"], layout["pad"], layout["order"]
    for name, arr in data.items():
        if name.endswith(_GRID_SUFFIXES):
            grid = arr.reshape(full[::-1]).transpose(tuple(range(dim - 1, -1, -1)))
            out[name] = np.ascontiguousarray(grid[tuple(slice(p, n - p) for p, n in zip(pad, full))])
        elif arr.ndim == 2:
            out[name] = np.ascontiguousarray(arr.T[order])
        else:
            out[name] = arr[order]
    return out
