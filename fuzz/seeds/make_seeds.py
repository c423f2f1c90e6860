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
