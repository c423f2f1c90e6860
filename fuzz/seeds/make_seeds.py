#!/usr/bin/env python3
"""Writes the tiny synthetic seeds beside this script, one folder per harness (scripts/fuzz.sh adds
the larger real files of ../shared/data by path)."""
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))


def write(folder, name, data):
    os.makedirs(os.path.join(here, folder), exist_ok=True)
    with open(os.path.join(here, folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def bmp(width, height, bpp, palette=b"", rows=b""):
    offset = 14 + 40 + len(palette)
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, bpp, 0, len(rows), 2835, 2835, len(palette) // 4, 0)
    return b"BM" + struct.pack("<IHHI", offset + len(rows), 0, 0, offset) + info + palette + rows


write("bmp", "rgb_3x2.bmp", bmp(3, 2, 24, rows=(bytes(range(9)) + b"\0\0\0") * 2))
write("bmp", "grey_4x2.bmp", bmp(4, 2, 8, palette=b"".join(bytes([i, i, i, 0]) for i in range(256)), rows=bytes(range(8))))
write("pnm", "plain.pgm", "P2\n3 2\n255\n0 128 255\n1 2 3\n")
write("pnm", "raw.pgm", b"P5\n3 2\n255\n" + bytes(range(6)))
write("pnm", "raw16.pgm", b"P5\n2 2\n65535\n" + bytes(range(8)))
write("pnm", "raw.ppm", b"P6\n2 1\n255\n" + bytes(range(6)))
atoms = [("N", 0.0, 0.0, 0.0), ("CA", 1.46, 0.0, 0.0), ("C", 2.0, 1.42, 0.0), ("O", 1.25, 2.4, 0.1)]
pdb = "".join("ATOM  %5d  %-3s ALA A   1    %8.3f%8.3f%8.3f  1.00  0.00           %s\n" % (i + 1, a, x, y, z, a[0])
              for i, (a, x, y, z) in enumerate(atoms)) + "END\n"
write("pdb", "ala.pdb", pdb)
cif = ("data_ala\nloop_\n_atom_site.group_PDB\n_atom_site.id\n_atom_site.type_symbol\n_atom_site.label_atom_id\n"
       "_atom_site.label_comp_id\n_atom_site.label_asym_id\n_atom_site.label_seq_id\n_atom_site.Cartn_x\n"
       "_atom_site.Cartn_y\n_atom_site.Cartn_z\n_atom_site.occupancy\n_atom_site.pdbx_PDB_model_num\n" +
       "".join("ATOM %d %s %s ALA A 1 %.3f %.3f %.3f 1.00 1\n" % (i + 1, a[0], a, x, y, z) for i, (a, x, y, z) in enumerate(atoms)))
write("mmcif", "ala.cif", cif)
for i, op in enumerate(["median:5", "conv:1,2,1;2,4,2;1,2,1:sum", "sobel", "gaussian:5:1.2", "box:3", "threshold:128",
                        "conv:0,-1,0;-1,4,-1;0,-1,0", "float"]):
    write("op", "op%d.txt" % i, op)
for i, spec in enumerate(["auto", "gpu", "cpu", "0:0", "pocl", "1:0"]):
    write("device", "spec%d.txt" % i, spec)


def nifti1(dims, datatype, bitpix, values, pixdim=(1.0, 1.0, 1.0), slope=0.0, inter=0.0):
    """A single-file NIfTI-1 (.nii): the 348-byte header at the standard's offsets, 4 bytes of extension flag, data."""
    h = bytearray(352)
    struct.pack_into("<i", h, 0, 348)
    dim = [len(dims)] + list(dims) + [1] * (7 - len(dims))
    struct.pack_into("<8h", h, 40, *dim)
    struct.pack_into("<hh", h, 70, datatype, bitpix)
    struct.pack_into("<8f", h, 76, 1.0, *pixdim, 1.0, 1.0, 1.0, 1.0)
    struct.pack_into("<fff", h, 108, 352.0, slope, inter)
    h[344:348] = b"n+1\0"
    return bytes(h) + values


write("nifti", "int16_2x2x2.nii", nifti1((2, 2, 2), 4, 16, struct.pack("<8h", *range(-4, 4)), (0.5, 0.5, 2.0)))
write("nifti", "float32_3x2.nii", nifti1((3, 2), 16, 32, struct.pack("<6f", 0.0, 1.5, -2.0, 3.25, 1e3, -1e-3), slope=2.0, inter=1.0))
write("nifti", "uint8_4x1x2.nii", nifti1((4, 1, 2), 2, 8, bytes(range(8))))
write("raster", "grid_3x2.asc", "ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\nNODATA_value -9999\n1 2 3\n4 -9999 6\n")

# Meshes: a tetrahedron (and a quad) in every format. fuzz_mesh takes a first byte 0..3 as the
# extension (.obj, .off, .ply, .stl); the binary files carry it, the text ones start as their format does.
tet_v = [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
tet_f = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]
write("mesh", "tet.obj", "".join("v %g %g %g\n" % v for v in tet_v) + "f 1 2 3 4\n" +
      "".join("f %d/%d %d//%d %d\n" % (a + 1, a + 1, b + 1, b + 1, c + 1) for a, b, c in tet_f) + "f -1 -2 -3\n")
write("mesh", "tet.off", "OFF\n# a tetrahedron\n4 5 0\n" + "".join("%g %g %g\n" % v for v in tet_v) +
      "".join("3 %d %d %d\n" % f for f in tet_f) + "4 0 1 2 3\n")
write("mesh", "tet_colours.off", "COFF\n4 4 0\n" + "".join("%g %g %g 255 0 0 255\n" % v for v in tet_v) +
      "".join("3 %d %d %d\n" % f for f in tet_f))
write("mesh", "tet_binary.off", b"\x01OFF BINARY\n" + struct.pack(">iii", 4, 4, 0) +
      b"".join(struct.pack(">fff", *v) for v in tet_v) + b"".join(struct.pack(">iiiii", 3, *f, 0) for f in tet_f))
ply_header = ("ply\nformat %s 1.0\ncomment a tetrahedron\nelement vertex 4\nproperty float x\nproperty float y\n"
              "property float z\nelement face 4\nproperty list uchar int vertex_indices\nend_header\n")
write("mesh", "tet_ascii.ply", ply_header % "ascii" + "".join("%g %g %g\n" % v for v in tet_v) +
      "".join("3 %d %d %d\n" % f for f in tet_f))
for name, fmt, end in (("tet_le.ply", "binary_little_endian", "<"), ("tet_be.ply", "binary_big_endian", ">")):
    write("mesh", name, b"\x02" + (ply_header % fmt).encode() + b"".join(struct.pack(end + "fff", *v) for v in tet_v) +
          b"".join(struct.pack(end + "Biii", 3, *f) for f in tet_f))
write("mesh", "tet_double.ply", b"\x02ply\nformat binary_little_endian 1.0\nelement vertex 4\nproperty double x\n"
      b"property double y\nproperty double z\nproperty uchar red\nelement face 4\nproperty list uint uint vertex_index\n"
      b"end_header\n" + b"".join(struct.pack("<dddB", *v, 7) for v in tet_v) + b"".join(struct.pack("<IIII", 3, *f) for f in tet_f))
write("mesh", "tet_ascii.stl", "solid tet\n" + "".join(
    "facet normal 0 0 0\nouter loop\n" + "".join("vertex %g %g %g\n" % tet_v[i] for i in f) + "endloop\nendfacet\n"
    for f in tet_f) + "endsolid tet\n")
write("mesh", "tet_binary.stl", b"\x03" + b"binary tetrahedron".ljust(80, b"\0") + struct.pack("<I", 4) + b"".join(
    struct.pack("<3f", 0, 0, 0) + b"".join(struct.pack("<3f", *tet_v[i]) for i in f) + b"\0\0" for f in tet_f))
