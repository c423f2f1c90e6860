#!/usr/bin/env python3
"""Writes the PTX of each NVIDIA program in a portacl program cache that holds a given kernel.

NVIDIA's OpenCL driver returns PTX as a program's binary; portacl caches it (host/runtime/
program_cache.cpp: magic line, key length, key, payload length, checksum, payload). Each file is
named after the kernel and a hash of its build options; the options are printed beside it.

usage: cached_ptx.py CACHE_DIR KERNEL OUT_DIR
"""
import hashlib
import os
import re
import sys


def entries(cache_dir):
    for name in sorted(os.listdir(cache_dir)):
        if not name.endswith(".bin"):
            continue
        data = open(os.path.join(cache_dir, name), "rb").read()
        lines = data.split(b"\n", 2)
        if len(lines) < 3 or not lines[0].startswith(b"PORTACL-PROGRAM-CACHE"):
            continue
        key_len = int(lines[1])
        rest = lines[2]
        key, rest = rest[:key_len].decode("latin1"), rest[key_len:]
        payload_len, _checksum, payload = rest.split(b"\n", 2)
        yield key, payload[: int(payload_len)]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    cache_dir, kernel, out_dir = sys.argv[1:]
    os.makedirs(out_dir, exist_ok=True)
    found = 0
    for key, payload in entries(cache_dir):
        if (b".entry " + kernel.encode()) not in payload:
            continue
        options = re.search(r"^options (.*)$", key, re.M).group(1)
        path = os.path.join(out_dir, "%s_%s.ptx" % (kernel, hashlib.sha1(options.encode()).hexdigest()[:8]))
        open(path, "wb").write(payload.rstrip(b"\0"))
        print(path, options)
        found += 1
    if not found:
        sys.exit("no cached program in %s has the kernel %s" % (cache_dir, kernel))


main()
