#!/usr/bin/python3
"""Compares two k-Wave output files dataset by dataset.

usage: /usr/bin/python3 tools/kwave/compare_outputs.py REFERENCE.h5 CANDIDATE.h5 [--tol 1e-4] [--label NAME]

Both files must hold the same datasets (groups such as /p/1 of cuboid sensors included) with the same
shapes, element types and data_type/domain_type attributes. Integer datasets (the copied scalars and
sensor mask) must be equal; for floating-point ones the relative L2 error ||cand - ref|| / ||ref|| must
be within the tolerance. The root attributes must exist in both (their values, such as times and host
names, differ by nature). Prints one line per dataset (name, shape, relative L2, relative Linf) and a
last line `worst <label> <error> <dataset>`; exit status 1 when anything differs, 2 on a usage error.
"""
import argparse
import sys

import h5py
import numpy as np


def datasets(f):
    out = {}
    f.visititems(lambda name, obj: out.__setitem__(name, obj) if isinstance(obj, h5py.Dataset) else None)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("reference")
    ap.add_argument("candidate")
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    problems = []
    worst, worst_name = 0.0, "-"
    with h5py.File(a.reference, "r") as ref, h5py.File(a.candidate, "r") as cand:
        for attr in ref.attrs:
            if attr not in cand.attrs:
                problems.append("root attribute '%s' missing" % attr)
        dr, dc = datasets(ref), datasets(cand)
        for name in sorted(set(dr) - set(dc)):
            problems.append("dataset '%s' missing" % name)
        for name in sorted(set(dc) - set(dr)):
            problems.append("dataset '%s' not in the reference" % name)
        for name in sorted(set(dr) & set(dc)):
            r, c = dr[name], dc[name]
            if r.shape != c.shape:
                problems.append("'%s' has shape %s, the reference %s" % (name, c.shape, r.shape))
                continue
            if r.dtype != c.dtype:
                problems.append("'%s' has type %s, the reference %s" % (name, c.dtype, r.dtype))
            for attr in ("data_type", "domain_type"):
                if r.attrs.get(attr) != c.attrs.get(attr):
                    problems.append("'%s' attribute %s is %r, the reference %r" % (name, attr, c.attrs.get(attr), r.attrs.get(attr)))
            rv, cv = np.asarray(r[()], dtype=np.float64), np.asarray(c[()], dtype=np.float64)
            if np.issubdtype(r.dtype, np.integer):
                ok = np.array_equal(rv, cv)
                print("%-28s %-22s %s" % (name, r.shape, "equal" if ok else "DIFFERENT"))
                if not ok:
                    problems.append("'%s' differs" % name)
                continue
            norm = np.linalg.norm(rv)
            diff = np.linalg.norm(cv - rv)
            # A zero reference: the error relative to nothing is the absolute error (0 when both are 0).
            rel = diff / norm if norm > 0 else diff
            linf = np.max(np.abs(cv - rv)) / max(np.max(np.abs(rv)), np.finfo(float).tiny) if rv.size else 0.0
            if not np.all(np.isfinite(cv)):
                rel = float("inf")
            print("%-28s %-22s rel L2 %.2e  rel Linf %.2e" % (name, r.shape, rel, linf))
            if rel > worst:
                worst, worst_name = rel, name
            if not rel <= a.tol:
                problems.append("'%s' relative L2 %.3g > %.3g" % (name, rel, a.tol))
    for p in problems:
        print("PROBLEM " + p)
    print("worst %s %.3e %s" % (a.label or "-", worst, worst_name))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
