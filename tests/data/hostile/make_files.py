#!/usr/bin/env python3
"""Writes the tiny hostile files beside this script (tests/test_hostile_input.cpp reads them, and
scripts/fuzz.sh seeds the fuzzers with them). Each declares far more data than it holds."""
import os
import struct
import zlib

here = os.path.dirname(os.path.abspath(__file__))


def write(name, data):
    with open(os.path.join(here, name), "wb") as f:
        f.write(data)


def png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


# A PNG of 30000 x 30000 RGBA (3.6 GB of pixels) in a few dozen bytes.
ihdr = struct.pack(">IIBBBBB", 30000, 30000, 8, 6, 0, 0, 0)
write("png_bomb.png", b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", zlib.compress(b"\0" * 16)) +
      png_chunk(b"IEND", b""))

# A raw PGM header declaring 65535 x 32768 samples (2 GB) and no data.
write("pgm_bomb.pgm", b"P5\n65535 32768\n255\n")

# A 40-byte BMP (shorter than its 54-byte header) claiming 16514832 x 13 pixels of 24 bits.
bmp = b"BM" + struct.pack("<IHHII", 40, 0, 0, 54, 40) + struct.pack("<iiHHIIiiII", 16514832, 13, 1, 24, 0, 0, 0, 0, 0, 0)
write("bmp_short_header.bmp", bmp[:40])

# A complete BMP header whose width is -2^31.
write("bmp_int_min_width.bmp", b"BM" + struct.pack("<IHHII", 58, 0, 0, 54, 40) +
      struct.pack("<iiHHIIiiII", -2**31, 1, 1, 24, 0, 4, 2835, 2835, 0, 0) + b"\0" * 4)


def tiff(entries, data):
    # Little-endian, one IFD at offset 8, the data right after it.
    data_at = 8 + 2 + 12 * len(entries) + 4
    out = b"II*\0" + struct.pack("<I", 8) + struct.pack("<H", len(entries))
    for tag, kind, value in sorted(entries):
        value = data_at if value == "data" else value
        out += struct.pack("<HHII", tag, kind, 1, value)
    return out + struct.pack("<I", 0) + data


SHORT, LONG = 3, 4
common = [(258, SHORT, 8), (259, SHORT, 1), (262, SHORT, 1), (277, SHORT, 1)]
# 16384 x 16384 8-bit grey, uncompressed, in 4 bytes.
write("tiff_bomb.tif", tiff(common + [(256, LONG, 16384), (257, LONG, 16384), (273, LONG, "data"),
                                      (278, LONG, 16384), (279, LONG, 4)], b"\0" * 4))
# Tiles of zero width (the tile loop never advanced).
write("tiff_zero_tile.tif", tiff(common + [(256, LONG, 16), (257, LONG, 16), (322, LONG, 0), (323, LONG, 16),
                                           (324, LONG, "data"), (325, LONG, 4)], b"\0" * 4))
# A 16 x 16 grid in tiles of 32768 x 32768 (GDAL reads whole tiles: 1 GiB for 256 cells).
write("raster_huge_tile.tif", tiff(common + [(256, LONG, 16), (257, LONG, 16), (322, LONG, 32768), (323, LONG, 32768),
                                             (324, LONG, "data"), (325, LONG, 4)], b"\0" * 4))

# .npy: a version-2 header length of 4 GiB - 16; a shape whose product overflows 64 bits.
write("npy_header_bomb.npy", b"\x93NUMPY\x02\x00" + struct.pack("<I", 0xFFFFFFF0) + b"{'descr'")
header = b"{'descr': '<f8', 'fortran_order': False, 'shape': (1073741824, 1073741824, 1073741824), }"
header += b" " * ((64 - (10 + len(header) + 1) % 64) % 64) + b"\n"
write("npy_shape_overflow.npy", b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header)

# ESRI ASCII grid (GDAL): 30000 x 30000 cells declared in a 65-byte file.
write("raster_bomb.asc", b"ncols 30000\nnrows 30000\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n")
# raster_many_bands.tif is not written here: it is the raster fuzzer's input kept as found (a 1092-byte
# LZW GeoTIFF of 656 x 456 cells declaring 63743 interleaved bands; GDAL read 2.4 GB for band 1).

# Meshes (read by CGAL's readers, OFF in ASCII by the project's own): counts in headers that buy
# gigabytes, and lines the readers used to read past.
ply_vertices = ("ply\nformat %s 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                "element face 1\nproperty list %s int vertex_indices\nend_header\n")
triangle = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0)
# A face list of 4294967280 ints (16 GB) in a 200-byte binary PLY.
write("ply_list_bomb.ply", (ply_vertices % ("binary_little_endian", "uint")).encode() + triangle + struct.pack("<I", 0xFFFFFFF0))
# The same in ASCII: a length of 3000000000, beyond the int that holds it (read as 2^31 - 1).
write("ply_list_overflow.ply", (ply_vertices % ("ascii", "int")).encode() + b"0 0 0\n1 0 0\n0 1 0\n3000000000 0 1 2\n")
# 10^12 vertices without a property: nothing to read, a point pushed for each.
write("ply_empty_items.ply", b"ply\nformat ascii 1.0\nelement vertex 1000000000000\nend_header\n")
# A property before any element (the reader added it to the last element of none).
write("ply_property_first.ply", b"ply\nformat ascii 1.0\nproperty float x\nelement vertex 1\nproperty float y\nend_header\n0\n")
# 2 x 10^9 vertices and faces declared (48 GB of points) with none given, in ASCII and in binary.
write("off_count_bomb.off", b"OFF\n2000000000 2000000000 0\n")
write("off_binary_count_bomb.off", b"OFF BINARY\n" + struct.pack(">iii", 0x7FFFFFFF, 0x7FFFFFFF, 0))
# A coloured OFF whose second vertex line is short (the colour columns were read past its end).
write("off_short_colour_line.off", b"COFF\n3 1 0\n0 0 0 255 0 0 255\n1 0\n0 1 0 255 0 0 255\n3 0 1 2\n")
# A binary tetrahedron whose edge count (which nothing needs) overflowed CGAL's header arithmetic.
tet = [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
write("off_binary_edge_overflow.off", b"OFF BINARY\n" + struct.pack(">iii", 4, 4, 0x7FFFFFFF) +
      b"".join(struct.pack(">fff", *v) for v in tet) +
      b"".join(struct.pack(">iiiii", 3, *f, 0) for f in [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]))
# A header that never ends: the reader read the face list's length from the failed stream (garbage).
write("ply_no_end_header.ply", b"ply\nformat binary_little_endian 1.0\nelement face 1\nproperty list uint uint vertex_index\n")
