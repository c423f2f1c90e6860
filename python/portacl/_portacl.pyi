"""Types of the extension module (python/src/); use the package portacl, which re-exports it."""

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Type, Union

import numpy as np
import numpy.typing as npt

__version__: str

class DeviceError(RuntimeError):
    status: Optional[str]

class BuildError(DeviceError):
    log: str
    options: str

class Device:
    index: str
    platform: str
    platform_version: str
    name: str
    vendor: str
    type: str
    compute_units: int
    clock_mhz: int
    global_memory_bytes: int
    max_alloc_bytes: int
    local_memory_bytes: int
    max_work_group_size: int
    fp64: bool
    fp16: bool
    opencl_c_version: str
    device_version: str
    driver_version: str
    compute_capability: Optional[str]
    warp_size: Optional[int]
    profile: str
    simulator: bool
    def as_dict(self) -> Dict[str, Any]: ...

def devices(spec: str = "all") -> List[Device]: ...

class _Context:
    def __init__(self, device: Union[str, Device, None] = None, precision: str = "float", profile: bool = False,
                 cache: bool = True) -> None: ...
    @property
    def device(self) -> Device: ...
    @property
    def precision(self) -> str: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None: ...
    def finish(self) -> None: ...
    def profile(self) -> Dict[str, Dict[str, Any]]: ...
    def clear_profile(self) -> None: ...

Ctx = Optional[_Context]
FloatArray = npt.NDArray[np.floating]

def vector_sum(a: FloatArray, b: FloatArray, *, ctx: Ctx = None) -> FloatArray: ...
def gemm(a: FloatArray, b: FloatArray, *, kernel: str = "fast", ctx: Ctx = None) -> FloatArray: ...
def filter_operations() -> List[Tuple[str, str]]: ...
def lineal_path(image: npt.ArrayLike, *, phase: float = 1.0, max_length: int, periodic: bool = False, counts: bool = False,
                ctx: Ctx = None) -> Union[npt.NDArray[np.float64], Tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]]: ...
def s2(image: npt.ArrayLike, *, phase: float = 1.0, max_length: int, periodic: bool = False, precision: Optional[str] = None,
       ctx: Ctx = None) -> npt.NDArray[np.float64]: ...
def reconstruct(image: npt.ArrayLike, *, phase: float = 1.0, max_length: int, shape: Optional[Sequence[int]] = None,
                steps: int = 100000, seed: int = 1, t_max: float = 1e-3, t_min: float = 1e-6, s2_weight: float = 0.0,
                precision: Optional[str] = None, progress: Optional[Callable[[int, int], Any]] = None,
                ctx: Ctx = None) -> Dict[str, Any]: ...
def skeleton(volume: npt.ArrayLike, *, method: str = "lee", ctx: Ctx = None) -> npt.NDArray[np.bool_]: ...
def box_count(volume: npt.ArrayLike, *, sizes: Optional[Sequence[int]] = None, count: str = "occupied",
              offset_average: bool = False, fit: Optional[Tuple[int, int]] = None, ctx: Ctx = None) -> Dict[str, Any]: ...

def orient3d(points: npt.NDArray[np.float32], queries: npt.ArrayLike, *, precision: Optional[str] = None,
             report: bool = False, ctx: Ctx = None) -> Any: ...
def insphere(points: npt.NDArray[np.float32], queries: npt.ArrayLike, *, precision: Optional[str] = None,
             report: bool = False, ctx: Ctx = None) -> Any: ...

def mesh_intersect(vertices: FloatArray, faces: npt.NDArray[np.integer], *, method: str = "auto",
                   precision: Optional[str] = None, touching: str = "count", ctx: Ctx = None) -> Dict[str, Any]: ...
def read_mesh(path: str) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.uint32]]: ...
def _fft(x: np.ndarray, ndim: int, kind: str, inverse: bool, n_last: int, backend: str, ctx: Ctx) -> np.ndarray: ...

class kwave:
    @staticmethod
    def simulate(input: Any, *, record: Sequence[str] = ("p",), precision: str = "single", storage: str = "full",
                 start_index: int = 0, steps: int = 0, output_file: Any = None, progress: Any = None,
                 ctx: Ctx = None) -> Dict[str, npt.NDArray[np.float64]]: ...
    @staticmethod
    def _simulate_description(description: Dict[str, Any], *, record: Sequence[str], precision: str, storage: str,
                              start_index: int, steps: int, output_file: Any, progress: Any,
                              ctx: Ctx) -> Dict[str, npt.NDArray[np.float64]]: ...

class _Drainage:
    """The functions of the submodule drainage, and of its serial references (reference.drainage)."""
    @staticmethod
    def d8(dem: npt.ArrayLike, *, geotransform: Optional[Sequence[float]] = None, nodata: Optional[float] = None,
           precision: Optional[str] = None, encoding: Optional[str] = None, resolve_flats: bool = False,
           tile: Optional[Union[int, Tuple[int, int], str]] = None, ctx: Ctx = None) -> np.ndarray: ...
    @staticmethod
    def fill_depressions(dem: npt.ArrayLike, *, geotransform: Optional[Sequence[float]] = None,
                         nodata: Optional[float] = None, precision: Optional[str] = None,
                         tile: Optional[Union[int, Tuple[int, int], str]] = None, ctx: Ctx = None) -> npt.NDArray[np.float64]: ...
    @staticmethod
    def accumulate(directions: npt.ArrayLike, *, weights: Optional[npt.ArrayLike] = None, include_self: bool = True,
                   edge_contamination: bool = False, encoding: Optional[str] = None, precision: Optional[str] = None,
                   tile: Optional[Union[int, Tuple[int, int], str]] = None, ctx: Ctx = None) -> npt.NDArray[np.float64]: ...
    @staticmethod
    def watersheds(directions: npt.ArrayLike, *, outlets: Optional[Sequence[Tuple[int, int]]] = None,
                   encoding: Optional[str] = None, tile: Optional[Union[int, Tuple[int, int], str]] = None,
                   ctx: Ctx = None) -> npt.NDArray[np.int32]: ...

drainage: Type[_Drainage]

class reference:
    """The serial C++ references (the same arguments, no ctx)."""
    @staticmethod
    def vector_sum(a: FloatArray, b: FloatArray) -> FloatArray: ...
    @staticmethod
    def gemm(a: FloatArray, b: FloatArray) -> FloatArray: ...
    @staticmethod
    def lineal_path(image: npt.ArrayLike, *, phase: float = 1.0, max_length: int, periodic: bool = False,
                    counts: bool = False) -> Any: ...
    @staticmethod
    def s2(image: npt.ArrayLike, *, phase: float = 1.0, max_length: int, periodic: bool = False) -> npt.NDArray[np.float64]: ...
    @staticmethod
    def reconstruct(image: npt.ArrayLike, *, phase: float = 1.0, max_length: int, shape: Optional[Sequence[int]] = None,
                    steps: int = 100000, seed: int = 1, t_max: float = 1e-3, t_min: float = 1e-6, s2_weight: float = 0.0,
                    precision: Optional[str] = None, progress: Optional[Callable[[int, int], Any]] = None,
                ctx: Ctx = None) -> Dict[str, Any]: ...
    @staticmethod
    def skeleton(volume: npt.ArrayLike, *, method: str = "lee", ctx: Ctx = None) -> npt.NDArray[np.bool_]: ...
    @staticmethod
    def box_count(volume: npt.ArrayLike, *, sizes: Optional[Sequence[int]] = None, count: str = "occupied",
                  offset_average: bool = False, fit: Optional[Tuple[int, int]] = None, ctx: Ctx = None) -> Dict[str, Any]: ...
    @staticmethod
    def mesh_intersect(vertices: FloatArray, faces: npt.NDArray[np.integer], *, cgal: bool = False,
                       touching: str = "count") -> Dict[str, Any]: ...
    @staticmethod
    def _fft(x: npt.ArrayLike, ndim: int, kind: str, inverse: bool, n_last: int) -> np.ndarray: ...
    @staticmethod
    def orient3d(points: npt.NDArray[np.float32], queries: npt.ArrayLike) -> npt.NDArray[np.int8]: ...
    @staticmethod
    def insphere(points: npt.NDArray[np.float32], queries: npt.ArrayLike) -> npt.NDArray[np.int8]: ...
    @staticmethod
    def filter(image: npt.NDArray[np.generic], ops: Union[str, Sequence[str]], *, border: Union[str, int] = "reflect101",
               border_value: float = 0.0, precision: Optional[str] = None) -> npt.NDArray[np.generic]: ...
    @staticmethod
    def voronoi(balls: Any, *, radii: Optional[str] = None, hydrogens: bool = False,
                hetero: bool = False) -> Tuple[np.ndarray, np.ndarray]: ...
    fft: Any  # portacl.fft.reference (fft.pyi)

    drainage: Type[_Drainage]

    class kwave:
        @staticmethod
        def simulate(input: Any, medium: Any = None, source: Any = None, sensor: Any = None, *,
                     record: Optional[Sequence[str]] = None, start_index: Optional[int] = None, steps: int = 0,
                     output_file: Any = None, pml_size: Any = 20, pml_alpha: Any = 2.0, pml_inside: bool = False,
                     smooth_p0: bool = True) -> Dict[str, npt.NDArray[np.float64]]: ...
