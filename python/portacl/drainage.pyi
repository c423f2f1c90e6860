from typing import Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from ._portacl import _Context

Ctx = Optional[_Context]

def d8(dem: npt.ArrayLike, *, geotransform: Optional[Sequence[float]] = None, nodata: Optional[float] = None,
       precision: Optional[str] = None, encoding: Optional[str] = None, resolve_flats: bool = False,
       tile: Optional[Union[int, Tuple[int, int], str]] = None, ctx: Ctx = None) -> np.ndarray: ...
def fill_depressions(dem: npt.ArrayLike, *, geotransform: Optional[Sequence[float]] = None, nodata: Optional[float] = None,
                     precision: Optional[str] = None, tile: Optional[Union[int, Tuple[int, int], str]] = None,
                     ctx: Ctx = None) -> npt.NDArray[np.float64]: ...
def accumulate(directions: npt.ArrayLike, *, weights: Optional[npt.ArrayLike] = None, include_self: bool = True,
               edge_contamination: bool = False, encoding: Optional[str] = None, precision: Optional[str] = None,
               tile: Optional[Union[int, Tuple[int, int], str]] = None, ctx: Ctx = None) -> npt.NDArray[np.float64]: ...
def watersheds(directions: npt.ArrayLike, *, outlets: Optional[Sequence[Tuple[int, int]]] = None,
               encoding: Optional[str] = None, tile: Optional[Union[int, Tuple[int, int], str]] = None,
               ctx: Ctx = None) -> npt.NDArray[np.int32]: ...
