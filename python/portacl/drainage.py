"""D8 flow directions, depression filling, flow accumulation and watersheds on DEM arrays.

Directions are one byte per cell: 0..7 = E, NE, N, NW, W, SW, S, SE, 8 no flow, 255 NoData; every
function taking or returning directions also speaks ESRI's, TauDEM's, RichDEM's and Whitebox's codes
with ``encoding=``. Rows grow downwards, as in the DEM array.
"""

from ._portacl import drainage as _drainage

d8 = _drainage.d8
fill_depressions = _drainage.fill_depressions
accumulate = _drainage.accumulate
watersheds = _drainage.watersheds

__all__ = ["d8", "fill_depressions", "accumulate", "watersheds"]
