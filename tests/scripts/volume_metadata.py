#!/usr/bin/env python3
"""Reads a volume file with the readers users have, for tests/test_volume_output.cpp: tifffile for
TIFF stacks (the ImageJ metadata and the resolution tags), nibabel for NIfTI, h5py for HDF5.

usage: volume_metadata.py FILE [DATASET]
prints one line: "shape=Z,Y,X sum=S spacing=DZ,DY,DX unit=U" and, for a NIfTI file with them, its
" sform=CODE:..." and " qform=CODE:..." (the first three rows of each matrix) (sum of the voxels divided by their
largest value, so 0/1 and 0/255 masks print their object's voxel count).
Exits 77 when the reader for FILE's format is missing (the test skips, saying so).
"""
import sys

world = ""
path = sys.argv[1]
try:
    import numpy as np
    if path.endswith((".tif", ".tiff")):
        import tifffile
    elif path.endswith((".nii", ".nii.gz")):
        import nibabel
    else:
        import h5py
except ImportError:
    sys.exit(77)

if path.endswith((".tif", ".tiff")):
    with tifffile.TiffFile(path) as tif:
        data = tif.asarray()
        ij = tif.imagej_metadata or {}
        tags = tif.pages[0].tags
        xres = tags["XResolution"].value
        yres = tags["YResolution"].value
        spacing = (float(ij.get("spacing", 1.0)), yres[1] / yres[0], xres[1] / xres[0])
        unit = ij.get("unit", "")
elif path.endswith((".nii", ".nii.gz")):
    img = nibabel.load(path)
    data = np.asarray(img.dataobj).transpose(2, 1, 0)  # NIfTI's (x, y, z) to C order (z, y, x)
    zooms = img.header.get_zooms()
    spacing = (float(zooms[2]), float(zooms[1]), float(zooms[0]))
    unit = img.header.get_xyzt_units()[0]
    sform, scode = img.header.get_sform(coded=True)
    qform, qcode = img.header.get_qform(coded=True)
    rows = lambda m: ",".join(f"{round(float(a), 6) + 0.0:.6g}" for a in m[:3].ravel())  # quaternions carry float noise
    world = f" sform={int(scode)}:{rows(sform)}" if scode else ""
    world += f" qform={int(qcode)}:{rows(qform)}" if qcode else ""
else:
    with h5py.File(path, "r") as f:
        ds = f[sys.argv[2]]
        data = ds[()]
        spacing = tuple(float(s) for s in ds.attrs["element_size_um"]) if "element_size_um" in ds.attrs else (1.0, 1.0, 1.0)
        unit = "micron" if "element_size_um" in ds.attrs else ""
top = data.max() if data.max() > 0 else 1
print(f"shape={','.join(str(n) for n in data.shape)} sum={int(data.sum() // top)} "
      f"spacing={','.join(f'{s:.6g}' for s in spacing)} unit={unit}{world}")
