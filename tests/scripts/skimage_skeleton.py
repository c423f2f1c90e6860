#!/usr/bin/env python3
"""Writes a binary_blobs volume and scikit-image's skeleton of it, for tests/test_skeleton.cpp.

usage: skimage_skeleton.py OUT_DIR SIDE DEPTH SEED BLOB_SIZE FRACTION
writes OUT_DIR/input.npy (uint8 0/1, shape (DEPTH, SIDE, SIDE)) and OUT_DIR/skeleton.npy (uint8 0/1),
and prints the skeleton's voxel count and the seconds scikit-image took.
Exits 77 when scikit-image is missing (the test skips, saying so).
"""
import sys
import time

try:
    import numpy as np
    from skimage.data import binary_blobs
    try:
        from skimage.morphology import skeletonize_3d
    except ImportError:  # scikit-image 0.25 and later: skeletonize thins 3-D volumes by the same method
        from skimage.morphology import skeletonize as skeletonize_3d
except ImportError:
    sys.exit(77)

out, side, depth, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
blob_size, fraction = float(sys.argv[5]), float(sys.argv[6])
# binary_blobs' keyword for the seed changed between releases (seed, then rng).
try:
    volume = binary_blobs(side, blob_size, n_dim=3, volume_fraction=fraction, seed=seed)
except TypeError:
    volume = binary_blobs(side, blob_size, n_dim=3, volume_fraction=fraction, rng=seed)
volume = np.ascontiguousarray(volume[:depth]).astype(np.uint8)
np.save(out + "/input.npy", volume)
start = time.perf_counter()
skeleton = (skeletonize_3d(volume) > 0).astype(np.uint8)
seconds = time.perf_counter() - start
np.save(out + "/skeleton.npy", skeleton)
print(f"scikit-image skeleton: {int(skeleton.sum())} voxels in {seconds:.3f} s")
