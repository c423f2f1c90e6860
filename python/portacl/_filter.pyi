from typing import Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from ._portacl import _Context

def filter(image: npt.NDArray[np.generic], ops: Union[str, Sequence[str]], *, border: Union[str, int] = "reflect101",
           border_value: float = 0.0, precision: Optional[str] = None,
           ctx: Optional[_Context] = None) -> npt.NDArray[np.generic]: ...
def filter_reference(image: npt.NDArray[np.generic], ops: Union[str, Sequence[str]], *,
                     border: Union[str, int] = "reflect101", border_value: float = 0.0,
                     precision: Optional[str] = None) -> npt.NDArray[np.generic]: ...
