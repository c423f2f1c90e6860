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
