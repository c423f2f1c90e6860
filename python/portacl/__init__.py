"""PortaCL from Python: the OpenCL engine's workloads on NumPy arrays.

Each workload is a function taking NumPy arrays and returning NumPy arrays; it runs on the context
passed as ``ctx=``, else on the innermost ``with portacl.Context(...)``, else on a default context
(the device PORTACL_DEVICE names, else 'auto': the first GPU, else the first CPU). The serial C++
references the library is tested against are in :mod:`portacl.reference`. See docs/python.md.
"""

import atexit as _atexit
import logging as _logging
import os as _os

# The vendor profiles shipped in the package are searched after any the user names.
_here = _os.path.dirname(__file__)
if _os.path.isdir(_os.path.join(_here, "platforms")):
    _dirs = [d for d in _os.environ.get("PORTACL_PLATFORMS_DIR", "").split(":") if d]
    _os.environ["PORTACL_PLATFORMS_DIR"] = ":".join(_dirs + [_os.path.join(_here, "platforms")])

from . import _portacl  # noqa: E402
from ._portacl import BuildError, Device, DeviceError, devices, reference, vector_sum  # noqa: E402,F401
from ._context import Context, current_context, default_context  # noqa: E402,F401

__version__ = _portacl.__version__

if hasattr(_portacl, "_filter"):
    from ._filter import filter, filter_reference  # noqa: F401
    from ._portacl import filter_operations  # noqa: F401
    reference.filter = filter_reference
if hasattr(_portacl, "gemm"):
    from ._portacl import gemm  # noqa: F401
if hasattr(_portacl, "_voronoi"):
    from ._voronoi import voronoi, voronoi_reference  # noqa: F401
    reference.voronoi = voronoi_reference
if hasattr(_portacl, "skeleton"):
    from ._portacl import skeleton  # noqa: F401
if hasattr(_portacl, "box_count"):
    from ._portacl import box_count  # noqa: F401
if hasattr(_portacl, "drainage"):
    from . import drainage  # noqa: F401
if hasattr(_portacl, "orient3d"):
    from ._portacl import insphere, orient3d  # noqa: F401
if hasattr(_portacl, "kwave"):
    from . import kwave  # noqa: F401
    reference.kwave.simulate = kwave.reference_simulate
if hasattr(_portacl, "_fft"):
    from . import fft  # noqa: F401
    reference.fft = fft.reference
if hasattr(_portacl, "mesh_intersect"):
    from ._portacl import mesh_intersect, read_mesh  # noqa: F401
if hasattr(_portacl, "lineal_path"):
    from ._portacl import lineal_path, reconstruct, s2  # noqa: F401

# The library's messages (a device fallback, build logs with PORTACL_SHOW_BUILD_LOG) go to the
# logger "portacl".
_log = _logging.getLogger("portacl")
_portacl._set_logger(lambda level, message: _log.log(level, message))
_atexit.register(_portacl._set_logger, None)
