#!/usr/bin/python3
"""Writes a k-Wave input file (format 1.2, as k-Wave MATLAB writes it) for trying and timing
`portacl kwave` / kspaceFirstOrder-OpenCL: an N^3 grid (or N x N in 2-D), a Gaussian ball of 1 MPa
initial pressure, a heterogeneous (+-5 %), power-law absorbing, nonlinear medium, PML 10, and an index
sensor at every 997th point. This is the issue's 256^3 benchmark case with N = 256.

The grids are generated and written a block of z planes at a time (float32 on disk), so that the
memory it takes stays near 1 GB whatever N is (1024^3 included); the values do not depend on the
block size (the random stream is drawn in the same order as one draw of the whole grid).

usage: /usr/bin/python3 scripts/kwave_example_input.py OUT.h5 [N] [--2d] [--nt NT] [--homogeneous] [--linear] [--lossless]
(needs numpy and h5py: Debian's python3-numpy and python3-h5py)
"""
import argparse
import os

import h5py
import numpy as np

BLOCK_POINTS = 1 << 24  # grid points per block (about 128 MB for each float64 temporary)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("n", type=int, nargs="?", default=128)
    ap.add_argument("--2d", dest="two_d", action="store_true")
    ap.add_argument("--nt", type=int, default=50)
    ap.add_argument("--homogeneous", action="store_true")
    ap.add_argument("--linear", action="store_true")
    ap.add_argument("--lossless", action="store_true")
    a = ap.parse_args()
    if a.n < 2 or a.nt < 1:
        ap.error("N must be at least 2 and --nt at least 1")
    n, nz = a.n, (1 if a.two_d else a.n)
    shape = (nz, n, n)  # HDF5 order (Nz, Ny, Nx)
    dx, c_ref = 1e-4, 1600.0
    rng = np.random.default_rng(3)
    planes = max(1, BLOCK_POINTS // (n * n))  # z planes per block
    blocks = [(z0, min(nz, z0 + planes)) for z0 in range(0, nz, planes)]

    with h5py.File(a.out + ".tmp", "w") as f:
        def mark(d, data_type):
            d.attrs.create("data_type", np.bytes_(data_type))
            d.attrs.create("domain_type", np.bytes_("real"))

        def put(name, value, dtype, data_type):
            arr = np.asarray(value, dtype=dtype)
            if arr.ndim == 0:
                arr = arr.reshape(1, 1, 1)
            mark(f.create_dataset(name, data=arr), data_type)

        def u64(name, v):
            put(name, v, np.uint64, "long")

        def f32(name, v):
            put(name, v, np.float32, "float")

        def grid(names, block_of):
            """Full-grid float32 datasets `names`, all holding block_of(z0, z1) for each block of planes."""
            ds = [f.create_dataset(name, shape=shape, dtype=np.float32) for name in names]
            for d in ds:
                mark(d, "float")
            for z0, z1 in blocks:
                values = block_of(z0, z1).astype(np.float32)
                for d in ds:
                    d[z0:z1] = values

        def medium(names, base):
            if a.homogeneous:
                for name in names:
                    f32(name, base)
                return
            grid(names, lambda z0, z1: base * (1.0 + 0.05 * (2.0 * rng.random((z1 - z0, n, n)) - 1.0)))

        for k, v in dict(Nx=n, Ny=n, Nz=nz, Nt=a.nt, pml_x_size=10, pml_y_size=10, axisymmetric_flag=0,
                         nonuniform_grid_flag=0, nonlinear_flag=0 if a.linear else 1,
                         absorbing_flag=0 if a.lossless else 1, p0_source_flag=1, p_source_flag=0,
                         ux_source_flag=0, uy_source_flag=0, transducer_source_flag=0, sensor_mask_type=0).items():
            u64(k, v)
        f32("dt", 0.3 * dx / c_ref)
        f32("dx", dx)
        f32("dy", dx)
        f32("c_ref", c_ref)
        f32("pml_x_alpha", 2.0)
        f32("pml_y_alpha", 2.0)
        if nz > 1:
            u64("pml_z_size", 10)
            u64("uz_source_flag", 0)
            f32("dz", dx)
            f32("pml_z_alpha", 2.0)
        medium(["c0"], 1500.0)
        # k-Wave interpolates rho0 to the staggered grids; the ±5 % noise makes that immaterial here.
        medium(["rho0"] + ["rho0_sg" + axis for axis in (("x", "y", "z") if nz > 1 else ("x", "y"))], 1000.0)
        if not a.linear:
            medium(["BonA"], 6.0)
        if not a.lossless:
            medium(["alpha_coeff"], 0.75)
            f32("alpha_power", 1.5)
        c, r = n / 2.0, n / 10.0
        x = np.arange(n).reshape(1, 1, n)
        y = np.arange(n).reshape(1, n, 1)

        def ball(z0, z1):
            z = np.arange(z0, z1).reshape(-1, 1, 1)
            d2 = (x - c) ** 2 + (y - c) ** 2 + ((z - c) ** 2 if nz > 1 else 0)
            return 1e6 * np.exp(-d2 / r**2)

        grid(["p0_source_input"], ball)
        put("sensor_mask_index", np.arange(1, n * n * nz + 1, 997, dtype=np.uint64).reshape(1, 1, -1), np.uint64, "long")
        for k, v in dict(file_type="input", created_by="PortaCL scripts/kwave_example_input.py",
                         creation_date="", file_description="PortaCL k-Wave example", major_version="1",
                         minor_version="2").items():
            f.attrs.create(k, np.bytes_(v))
    os.replace(a.out + ".tmp", a.out)


if __name__ == "__main__":
    main()
