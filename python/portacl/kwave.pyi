from typing import Any, Callable, Dict, Optional, Sequence

import numpy as np
import numpy.typing as npt

from ._portacl import _Context

def simulate(input: Any, medium: Any = None, source: Any = None, sensor: Any = None, *,
             record: Optional[Sequence[str]] = None, precision: str = "single", storage: str = "full",
             start_index: Optional[int] = None, steps: int = 0, output_file: Any = None,
             progress: Optional[Callable[[int, int], Any]] = None, ctx: Optional[_Context] = None,
             pml_size: Any = 20, pml_alpha: Any = 2.0, pml_inside: bool = False,
             smooth_p0: bool = True) -> Dict[str, npt.NDArray[np.float64]]: ...
def reference_simulate(input: Any, medium: Any = None, source: Any = None, sensor: Any = None, *,
                       record: Optional[Sequence[str]] = None, start_index: Optional[int] = None, steps: int = 0,
                       output_file: Any = None, pml_size: Any = 20, pml_alpha: Any = 2.0, pml_inside: bool = False,
                       smooth_p0: bool = True) -> Dict[str, npt.NDArray[np.float64]]: ...
