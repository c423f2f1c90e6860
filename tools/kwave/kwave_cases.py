#!/usr/bin/python3
"""The k-Wave comparison cases: small k-Wave 1.2 input files that together exercise every physics
path, source and sensor kind of kspaceFirstOrder-OMP/-CUDA, and the output flags to run them with.

usage:
  /usr/bin/python3 tools/kwave/kwave_cases.py --list            # one line per case: name, flags, what
  /usr/bin/python3 tools/kwave/kwave_cases.py CASE OUT.h5       # writes the case's input file

The files follow k-Wave's on-disk layout (docs/kwave.md, the format notes): rank-3 datasets in
(Nz, Ny, Nx) order, uint64 integers with data_type 'long', float32 with 'float', 1-based indices,
fixed-length string attributes. Heterogeneous quantities get +-5 % white noise (a fixed seed per
case), so that every point of the medium matters. Needs numpy and h5py (Debian's /usr/bin/python3).
"""
import os
import sys

import h5py
import numpy as np

# Every output k-Wave's C++ codes write, asked of both solvers in every case.
ALL_OUTPUTS = ["-p", "--p_rms", "--p_max", "--p_min", "--p_max_all", "--p_min_all", "--p_final",
               "-u", "--u_non_staggered_raw", "--u_rms", "--u_max", "--u_min", "--u_max_all", "--u_min_all",
               "--u_final", "--copy_sensor_mask"]


class Case:
    def __init__(self, name, what, dims=2, absorption=0, nonlinear=False, hetero=(), source="p0",
                 mode=2, many=False, axes="x", sensor="index", start=1, alpha_power=1.5):
        self.name, self.what = name, what
        self.dims = dims
        self.absorption = absorption      # 0 lossless, 1 power law, 2 Stokes
        self.nonlinear = nonlinear
        self.hetero = set(hetero)         # of c0, rho0, BonA, alpha
        self.source = source              # p0, p, u, p+u, transducer
        self.mode, self.many, self.axes = mode, many, axes
        self.sensor = sensor              # index or corners
        self.start = start                # k-Wave's -s (1-based)
        self.alpha_power = alpha_power

    def flags(self):
        return ALL_OUTPUTS + (["-s", str(self.start)] if self.start != 1 else [])


ALL = ("c0", "rho0", "BonA", "alpha")
CASES = [
    Case("2d_lossless_homog_p0", "2-D homogeneous lossless, p0, index sensor"),
    Case("2d_powerlaw_nonlinear_hetero_p0_corners", "2-D heterogeneous power-law nonlinear, p0, cuboid sensor, -s 11",
         absorption=1, nonlinear=True, hetero=ALL, sensor="corners", start=11),
    Case("2d_stokes_hetero_p0", "2-D heterogeneous Stokes (y = 2), p0", absorption=2, hetero=ALL, alpha_power=2.0),
    Case("2d_mixed_scalars_powerlaw", "2-D power law: rho0 and alpha_coeff grids, c0 and B/A scalars, nonlinear",
         absorption=1, nonlinear=True, hetero=("rho0", "alpha")),
    Case("2d_psrc_dirichlet_one", "2-D p source, Dirichlet, one signal", source="p", mode=0),
    Case("2d_psrc_nocorrection_many", "2-D p source, additive without correction, a signal per point",
         source="p", mode=1, many=True, hetero=("c0", "rho0")),
    Case("2d_psrc_additive_many_powerlaw", "2-D p source, additive, a signal per point, heterogeneous power law",
         source="p", mode=2, many=True, absorption=1, hetero=ALL, sensor="corners"),
    Case("2d_usrc_dirichlet_many", "2-D ux and uy sources, Dirichlet, a signal per point",
         source="u", mode=0, many=True, axes="xy"),
    Case("2d_usrc_nocorrection_one", "2-D ux source, additive without correction, one signal",
         source="u", mode=1, axes="x", hetero=("c0", "rho0")),
    Case("2d_usrc_additive_nonlinear", "2-D ux and uy sources, additive, heterogeneous power law nonlinear",
         source="u", mode=2, many=True, axes="xy", absorption=1, nonlinear=True, hetero=ALL),
    Case("3d_lossless_homog_p0_corners", "3-D homogeneous lossless, p0, cuboid sensor", dims=3, sensor="corners"),
    Case("3d_powerlaw_nonlinear_hetero_p0", "3-D heterogeneous power-law nonlinear, p0 (the benchmark's physics), -s 6",
         dims=3, absorption=1, nonlinear=True, hetero=ALL, start=6),
    Case("3d_stokes_nonlinear_hetero_p0_corners", "3-D heterogeneous Stokes nonlinear, p0, cuboid sensor",
         dims=3, absorption=2, nonlinear=True, hetero=ALL, sensor="corners", alpha_power=2.0),
    Case("3d_mixed_scalars_powerlaw", "3-D power law nonlinear: c0 grid, rho0, B/A and alpha_coeff scalars",
         dims=3, absorption=1, nonlinear=True, hetero=("c0",)),
    Case("3d_psrc_additive_one_powerlaw", "3-D p source, additive, one signal, power law",
         dims=3, source="p", mode=2, absorption=1, hetero=("c0", "rho0", "alpha")),
    Case("3d_psrc_dirichlet_many_usrc", "3-D p source Dirichlet (a signal per point) and uy source without correction",
         dims=3, source="p+u", mode=0, many=True, axes="y", hetero=("c0", "rho0")),
    Case("3d_usrc_uz_additive_many", "3-D uz source, additive, a signal per point, cuboid sensor",
         dims=3, source="u", mode=2, many=True, axes="z", sensor="corners"),
    Case("3d_transducer", "3-D transducer source with a delay mask, heterogeneous",
         dims=3, source="transducer", hetero=("c0", "rho0")),
]


def write_case(case, path):
    rng = np.random.default_rng(sum(map(ord, case.name)))
    if case.dims == 2:
        nx, ny, nz, nt, pml = 64, 48, 1, 80, 8
    else:
        nx, ny, nz, nt, pml = 32, 28, 24, 40, 5
    shape = (nz, ny, nx)
    dx, dy, dz = 1.0e-4, 1.2e-4, 0.9e-4  # unequal spacings, so that an axis mix-up shows
    c_max = 1500.0 * (1.05 if "c0" in case.hetero else 1.0)
    dt = 0.25 * min(dx, dy, dz if case.dims == 3 else dx) / c_max

    def medium(name, base):
        if name not in case.hetero:
            return np.float32(base)
        return (base * (1.0 + 0.05 * (2.0 * rng.random(shape) - 1.0))).astype(np.float32)

    def linear(x, y, z):
        return 1 + x + nx * (y + ny * z)  # k-Wave's 1-based linear index

    tmp = path + ".tmp.%d" % os.getpid()
    with h5py.File(tmp, "w") as f:
        def put(name, value, dtype, data_type, shape3=None):
            arr = np.asarray(value, dtype=dtype)
            arr = arr.reshape(shape3 if shape3 is not None else ((1, 1, 1) if arr.size == 1 else arr.shape))
            d = f.create_dataset(name, data=arr)
            d.attrs.create("data_type", np.bytes_(data_type))
            d.attrs.create("domain_type", np.bytes_("real"))

        def u64(name, v, shape3=None):
            put(name, v, np.uint64, "long", shape3)

        def f32(name, v, shape3=None):
            put(name, v, np.float32, "float", shape3)

        def row(v):  # a (1, 1, N) vector
            v = np.asarray(v)
            return v.reshape(1, 1, v.size)

        axes = ("x", "y", "z")[: case.dims]
        flags = dict(Nx=nx, Ny=ny, Nz=nz, Nt=nt, axisymmetric_flag=0, nonuniform_grid_flag=0,
                     nonlinear_flag=int(case.nonlinear), absorbing_flag=case.absorption,
                     p0_source_flag=int(case.source == "p0"), sensor_mask_type=int(case.sensor == "corners"))
        for a in axes:
            flags["pml_%s_size" % a] = pml
        for k, v in flags.items():
            u64(k, v)
        f32("dt", dt)
        for a, d in zip(axes, (dx, dy, dz)):
            f32("d" + a, d)
            f32("pml_%s_alpha" % a, 2.0)
        f32("c_ref", c_max)
        f32("c0", medium("c0", 1500.0))
        rho = medium("rho0", 1000.0)
        f32("rho0", rho)
        for ax, a in enumerate(axes):  # k-Wave: 0.5 (rho[i] + rho[i+1]) along the axis, last plane rho
            if np.ndim(rho) == 0:
                f32("rho0_sg" + a, rho)
                continue
            axis = 2 - ax
            sg = rho.copy()
            lo = [slice(None)] * 3
            hi = [slice(None)] * 3
            lo[axis], hi[axis] = slice(0, -1), slice(1, None)
            sg[tuple(lo)] = 0.5 * (rho[tuple(lo)] + rho[tuple(hi)])
            f32("rho0_sg" + a, sg)
        if case.nonlinear:
            f32("BonA", medium("BonA", 6.0))
        if case.absorption:
            f32("alpha_coeff", medium("alpha", 0.75 if case.absorption == 1 else 0.5))
            f32("alpha_power", case.alpha_power)

        z, y, x = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
        if case.source == "p0":
            # An off-centre Gaussian ball (so that no symmetry hides an axis error); 3 MPa in the
            # nonlinear cases, where B/A then changes the result by about 1 %.
            cx, cy, cz, r = 0.45 * nx, 0.55 * ny, 0.5 * nz, max(2.5, nx / 12.0)
            d2 = (x - cx) ** 2 + (y - cy) ** 2 + ((z - cz) ** 2 if case.dims == 3 else 0)
            f32("p0_source_input", (3e6 if case.nonlinear else 1e6) * np.exp(-d2 / r**2))

        # Source points: a short line along y at x = nx/3 (and z = nz/2), plus two scattered points.
        zc = nz // 2 if case.dims == 3 else 0
        src = [linear(nx // 3, yy, zc) for yy in range(ny // 2 - 4, ny // 2 + 4)]
        src += [linear(nx // 2 + 3, ny // 3, zc), linear(2 * nx // 3, 2 * ny // 3, max(zc - 2, 0))]
        nsrc = len(src)
        f0 = 1500.0 / (8 * dx)  # 8 points per wavelength
        slen = nt - 12          # shorter than Nt: the flag (the length) must stop the source

        def signal(amplitude):
            t = np.arange(slen) * dt
            s = amplitude * np.sin(2 * np.pi * f0 * t) * np.sin(np.pi * np.arange(slen) / slen) ** 2
            if not case.many:
                return row(s)
            # One signal per point (HDF5 shape (1, Nt_src, Nsrc): point i of step t at t*Nsrc + i):
            # the same pulse with a phase and an amplitude per point.
            sig = np.stack([amplitude * (0.6 + 0.4 * i / nsrc) * np.sin(2 * np.pi * f0 * t + 0.4 * i) *
                            np.sin(np.pi * np.arange(slen) / slen) ** 2 for i in range(nsrc)], axis=1)
            return sig.reshape(1, slen, nsrc)

        p_on = case.source in ("p", "p+u")
        u_on = case.source in ("u", "p+u")
        u64("p_source_flag", slen if p_on else 0)
        if p_on:
            u64("p_source_mode", case.mode)
            u64("p_source_many", int(case.many))
            u64("p_source_index", row(src))
            # Density units as k-Wave's writers scale them (p 2 dt/(N c dx) for additive sources,
            # p/(N c^2) for Dirichlet); amplitudes of about 100 kPa.
            amp = 1e5 / (case.dims * 1500.0**2) if case.mode == 0 else 1e5 * 2 * dt / (case.dims * 1500.0 * dx)
            f32("p_source_input", signal(amp))
        u_axes = case.axes if u_on else ""
        for a in axes:
            u64("u%s_source_flag" % a, slen if a in u_axes else 0)
        if u_on:
            u64("u_source_mode", case.mode if case.source == "u" else 1)
            u64("u_source_many", int(case.many))
            u64("u_source_index", row(src))
            amp = 0.05 if case.mode == 0 else 0.05 * 2 * 1500.0 * dt / dx
            for a in u_axes:
                f32("u%s_source_input" % a, signal(amp))
        if case.source == "transducer":
            # k-Wave MATLAB: the flag is the signal length minus the largest delay; delays are 1-based.
            delays = np.array([1 + (i * 3) % 7 for i in range(nsrc)], dtype=np.uint64)
            flag = nt - 5
            t = np.arange(flag + int(delays.max())) * dt
            u64("transducer_source_flag", flag)
            u64("u_source_index", row(src))
            f32("transducer_source_input", row(0.05 * np.sin(2 * np.pi * f0 * t) * np.exp(-((t - 8 * dt) / (6 * dt)) ** 2)))
            u64("delay_mask", row(delays))
        else:
            u64("transducer_source_flag", 0)

        if case.sensor == "index":
            # Every 7th point, plus the source line (where Dirichlet sources show exactly).
            idx = sorted(set(range(1, nx * ny * nz + 1, 7)) | set(src))
            u64("sensor_mask_index", row(np.array(idx, dtype=np.uint64)))
        else:
            # Two cuboids, 1-based inclusive (x1, y1, z1, x2, y2, z2): a block and a plane.
            if case.dims == 2:
                c = [[5, 6, 1, 20, 30, 1], [40, 1, 1, 40, ny, 1]]
            else:
                c = [[4, 5, 3, 12, 14, 9], [1, 20, 1, nx, 20, nz]]
            u64("sensor_mask_corners", np.array(c, dtype=np.uint64).reshape(1, len(c), 6))

        for k, v in dict(file_type="input", created_by="PortaCL tools/kwave/kwave_cases.py",
                         creation_date="01-Jan-2025 00:00:00", file_description=case.name,
                         major_version="1", minor_version="2").items():
            f.attrs.create(k, np.bytes_(v))
    os.replace(tmp, path)


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--list":
        for c in CASES:
            print("%s\t%s\t%s" % (c.name, " ".join(c.flags()), c.what))
        return 0
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    by_name = {c.name: c for c in CASES}
    if sys.argv[1] not in by_name:
        print("kwave_cases.py: no case '%s' (see --list)" % sys.argv[1], file=sys.stderr)
        return 2
    write_case(by_name[sys.argv[1]], sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
