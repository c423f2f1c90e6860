#!/usr/bin/python3
"""Writes OpenCV's results for the filter comparison test (tests/test_filter_opencv.cpp).

usage: /usr/bin/python3 filter_opencv.py IMAGE_DIR OUT_DIR

For each case it writes OUT_DIR/<n>.png (OpenCV's own output; 8-bit, and for a few Gaussians 16-bit) and a line of
OUT_DIR/manifest.tsv: file, input image, the equivalent `portacl filter` operations (separated by
spaces) and the border mode. Cases OpenCV refuses (a border it does not support) are left out.
"""
import os
import sys

import cv2
import numpy as np

BORDERS = {
    "constant": cv2.BORDER_CONSTANT,
    "replicate": cv2.BORDER_REPLICATE,
    "reflect": cv2.BORDER_REFLECT,
    "reflect101": cv2.BORDER_REFLECT_101,
    "wrap": cv2.BORDER_WRAP,
}

MASK5 = np.array([[1, 2, 0, 1, 3], [0, 1, 4, 1, 0], [2, 1, 5, 2, 1], [1, 0, 3, 1, 2], [3, 1, 0, 2, 1]], np.float32)
MASK3_REAL = np.array([[0.1, 0.7, -0.2], [0.3, 0.2, 0.1], [0.05, 0.5, 0.25]], np.float32)


def inline(mask):
    return ";".join(",".join(repr(float(v)) if not float(v).is_integer() else str(int(v)) for v in row) for row in mask)


def gradient(img, dx_fn, border, l2=False):
    gx = dx_fn(img, 1, 0, border).astype(np.float64)
    gy = dx_fn(img, 0, 1, border).astype(np.float64)
    mag = np.sqrt(gx * gx + gy * gy) if l2 else np.abs(gx) + np.abs(gy)
    return np.clip(np.rint(mag), 0, 255).astype(np.uint8)


def sobel(img, dx, dy, border):
    return cv2.Sobel(img, cv2.CV_32F, dx, dy, ksize=3, borderType=border)


def scharr(img, dx, dy, border):
    return cv2.Scharr(img, cv2.CV_32F, dx, dy, borderType=border)


CASES = {
    # name: (portacl operations, OpenCV function of (image, border))
    "filter2D-5x5-sum": ("conv:" + inline(MASK5) + ":sum", lambda im, b: cv2.filter2D(im, -1, MASK5 / MASK5.sum(), borderType=b)),
    "filter2D-3x3-real": ("conv:" + inline(MASK3_REAL), lambda im, b: cv2.filter2D(im, -1, MASK3_REAL, borderType=b)),
    "blur-3": ("box:3", lambda im, b: cv2.blur(im, (3, 3), borderType=b)),
    "blur-9": ("box:9", lambda im, b: cv2.blur(im, (9, 9), borderType=b)),
    "gaussian-9-2": ("gaussian:9:2.0", lambda im, b: cv2.GaussianBlur(im, (9, 9), 2.0, borderType=b)),
    "gaussian-5": ("gaussian:5", lambda im, b: cv2.GaussianBlur(im, (5, 5), 0, borderType=b)),
    "gaussian-3": ("gaussian:3", lambda im, b: cv2.GaussianBlur(im, (3, 3), 0, borderType=b)),
    "gaussian-9": ("gaussian:9", lambda im, b: cv2.GaussianBlur(im, (9, 9), 0, borderType=b)),
    "gaussian-7-1.3": ("gaussian:7:1.3", lambda im, b: cv2.GaussianBlur(im, (7, 7), 1.3, borderType=b)),
    "gaussian-15-3.3": ("gaussian:15:3.3", lambda im, b: cv2.GaussianBlur(im, (15, 15), 3.3, borderType=b)),
    "gaussian-3-0.3": ("gaussian:3:0.3", lambda im, b: cv2.GaussianBlur(im, (3, 3), 0.3, borderType=b)),
    "sobel-l1": ("sobel", lambda im, b: gradient(im, sobel, b)),
    "sobel-l2": ("sobel:l2", lambda im, b: gradient(im, sobel, b, l2=True)),
    "scharr-l1": ("scharr", lambda im, b: gradient(im, scharr, b)),
    "laplacian-1": ("laplace:4", lambda im, b: cv2.Laplacian(im, cv2.CV_8U, ksize=1, borderType=b)),
    "laplacian-5": ("laplace:4:5", lambda im, b: cv2.Laplacian(im, cv2.CV_8U, ksize=5, borderType=b)),
}
# medianBlur always replicates the border.
MEDIAN = {"medianBlur-3": ("median:3", 3), "medianBlur-5": ("median:5", 5)}

ALL_BORDERS_CASES = ["filter2D-5x5-sum", "blur-3", "gaussian-5", "gaussian-9-2", "sobel-l1"]
# OpenCV's 16-bit Gaussians are bit-exact too (16 fractional bits a pass): these run on a 16-bit
# image made from the first one.
GAUSSIANS_16 = ["gaussian-5", "gaussian-9-2", "gaussian-15-3.3", "gaussian-3-0.3"]


def main():
    image_dir, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    lines = []
    n = 0
    images = sorted(f for f in os.listdir(image_dir) if f.endswith(".png"))
    for name in images:
        path = os.path.join(image_dir, name)
        img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
        if img is None or img.dtype != np.uint8:
            continue
        # Every case with OpenCV's default border on every image; every border on the first image.
        for case, (ops, fn) in CASES.items():
            borders = BORDERS if (name == images[0] and case in ALL_BORDERS_CASES) else {"reflect101": BORDERS["reflect101"]}
            for bname, b in borders.items():
                try:
                    out = fn(img, b)
                except cv2.error:
                    continue  # OpenCV does not support this border here
                f = "%d.png" % n
                n += 1
                cv2.imwrite(os.path.join(out_dir, f), out)
                lines.append("\t".join([f, path, ops, bname, case]))
        for case, (ops, k) in MEDIAN.items():
            f = "%d.png" % n
            n += 1
            cv2.imwrite(os.path.join(out_dir, f), cv2.medianBlur(img, k))
            lines.append("\t".join([f, path, ops, "replicate", case]))
    first = cv2.imread(os.path.join(image_dir, images[0]), cv2.IMREAD_UNCHANGED)
    wide = first.astype(np.uint16) * 257 + (np.arange(first.size, dtype=np.uint32) % 251).astype(np.uint16).reshape(first.shape)
    wide_path = os.path.join(out_dir, "input16.png")
    cv2.imwrite(wide_path, wide)
    for case in GAUSSIANS_16:
        ops, fn = CASES[case]
        f = "%d.png" % n
        n += 1
        cv2.imwrite(os.path.join(out_dir, f), fn(wide, cv2.BORDER_REFLECT_101))
        lines.append("\t".join([f, wide_path, ops, "reflect101", case + "-16bit"]))
    with open(os.path.join(out_dir, "manifest.tsv"), "w") as m:
        m.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
