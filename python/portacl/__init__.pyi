"""Types of the package portacl (docs/python.md)."""

from . import drainage as drainage
from . import fft as fft
from . import kwave as kwave
from ._context import Context as Context
from ._context import current_context as current_context
from ._context import default_context as default_context
from ._filter import filter as filter
from ._filter import filter_reference as filter_reference
from ._portacl import BuildError as BuildError
from ._portacl import Device as Device
from ._portacl import DeviceError as DeviceError
from ._portacl import box_count as box_count
from ._portacl import devices as devices
from ._portacl import filter_operations as filter_operations
from ._portacl import gemm as gemm
from ._portacl import insphere as insphere
from ._portacl import lineal_path as lineal_path
from ._portacl import mesh_intersect as mesh_intersect
from ._portacl import orient3d as orient3d
from ._portacl import read_mesh as read_mesh
from ._portacl import reconstruct as reconstruct
from ._portacl import reference as reference
from ._portacl import s2 as s2
from ._portacl import skeleton as skeleton
from ._portacl import vector_sum as vector_sum
from ._voronoi import voronoi as voronoi
from ._voronoi import voronoi_reference as voronoi_reference

__version__: str
