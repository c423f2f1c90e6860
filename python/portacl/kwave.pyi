from typing import Any, Callable, Dict, Optional, Sequence

import numpy as np
import numpy.typing as npt

from ._portacl import _Context

def simulate(input: Any, *, record: Sequence[str] = ("p",), precision: str = "single", storage: str = "full",
             start_index: int = 0, steps: int = 0, output_file: Any = None,
             progress: Optional[Callable[[int, int], Any]] = None,
             ctx: Optional[_Context] = None) -> Dict[str, npt.NDArray[np.float64]]: ...
