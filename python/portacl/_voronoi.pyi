import os
from typing import Any, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

from ._portacl import _Context

Balls = Union[npt.ArrayLike, str, os.PathLike, Any]  # an (N, 4) array, a structure file, a gemmi or Biopython structure

def voronoi(balls: Balls, *, precision: Optional[str] = None, radii: Optional[str] = None, hydrogens: bool = False,
            hetero: bool = False, ctx: Optional[_Context] = None) -> Tuple[np.ndarray, np.ndarray]: ...
def voronoi_reference(balls: Balls, *, radii: Optional[str] = None, hydrogens: bool = False,
                      hetero: bool = False) -> Tuple[np.ndarray, np.ndarray]: ...
