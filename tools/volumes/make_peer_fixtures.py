#!/usr/bin/env python3
"""Makes tests/data/volumes/peers: small volumes with the answers of peer tools that CI cannot
install cheaply, for tests/test_skeleton.cpp and tests/test_box_count.cpp.

  NAME.nii.gz           the volume (uint8 0/1; nibabel writes it, x fastest as NIfTI orders it)
  NAME_itk.nii.gz       ITK's BinaryThinningImageFilter3D of it (itk-thickness3d)
  porespy_boxcount.csv  porespy's metrics.boxcount of each volume: its default sizes and counts
                        (boxes holding both phases), one row a size

usage: make_peer_fixtures.py OUT_DIR  (with the peers' venv: pip install itk itk-thickness3d porespy
nibabel scikit-image)
"""
import os
import sys

import itk
import nibabel
import numpy as np
import porespy
from skimage.data import binary_blobs

porespy.settings.tqdm["disable"] = True


def volumes():
    # scikit-image's blobs, and overlapping random balls (thick, branching, with cavities).
    yield "blobs48", np.ascontiguousarray(binary_blobs(48, 0.15, n_dim=3, volume_fraction=0.35, rng=3)).astype(np.uint8)
    rng = np.random.default_rng(5)
    v = np.zeros((40, 44, 52), np.uint8)
    z, y, x = np.mgrid[:40, :44, :52]
    for _ in range(45):
        c = rng.integers(0, [40, 44, 52])
        r = rng.integers(2, 6)
        v[(z - c[0]) ** 2 + (y - c[1]) ** 2 + (x - c[2]) ** 2 <= r * r] = 1
    yield "balls40x44x52", v


def save(path, v):
    img = nibabel.Nifti1Image(np.transpose(v, (2, 1, 0)).copy(), np.eye(4))  # (z, y, x) to NIfTI's (x, y, z)
    img.set_data_dtype(np.uint8)
    nibabel.save(img, path)


def main(out):
    os.makedirs(out, exist_ok=True)
    counts = {}
    for name, v in volumes():
        f = itk.BinaryThinningImageFilter3D.New(itk.image_from_array(v))
        f.Update()
        sk = (itk.array_from_image(f.GetOutput()) != 0).astype(np.uint8)
        save(os.path.join(out, name + ".nii.gz"), v)
        save(os.path.join(out, name + "_itk.nii.gz"), sk)
        r = porespy.metrics.boxcount(v != 0)
        counts[name] = {"sizes": [int(s) for s in r.size], "counts": [int(c) for c in r.count]}
        print(f"{name}: {v.shape}, {int(v.sum())} voxels, ITK skeleton {int(sk.sum())} voxels, porespy {counts[name]}")
    with open(os.path.join(out, "porespy_boxcount.csv"), "w") as f:
        f.write(f"# porespy {porespy.__version__} metrics.boxcount, default sizes; ITK {itk.Version.GetITKVersion()} made the skeletons\n")
        f.write("volume,side,count\n")
        for name, c in counts.items():
            for side, n in zip(c["sizes"], c["counts"]):
                f.write(f"{name},{side},{n}\n")


if __name__ == "__main__":
    main(sys.argv[1])
