"""The context a workload runs in: the one passed as ctx=, else the innermost ``with`` block of
this thread, else one default context (PORTACL_DEVICE, else auto) made on first use."""

import threading

from . import _portacl

_local = threading.local()
_default = None
_default_lock = threading.Lock()


class Context(_portacl._Context):
    """One device's working set: its queue, compiled kernels and profiler.

    ``device`` is a selection spec ('auto', 'gpu', 'cpu', 'P:D', 'nvidia', 'pocl', ...; None means
    PORTACL_DEVICE, else 'auto') or a :class:`Device` from :func:`devices`. ``precision`` ('float',
    'double' or 'mixed') is what workloads called in this context use when given none; None leaves
    each workload its own default (mixed for Voronoi and the predicates, double for drainage, float
    for the filters and S2; gemm and vector_sum follow their arrays' dtype). With
    ``profile=True``, :meth:`profile` returns the table of kernel and transfer times.
    ``cache=False`` compiles the kernels afresh (as ``--no-cache``).

    As a context manager it becomes the context of workloads called without ``ctx=`` inside the
    block, and is closed at its end::

        with portacl.Context(device="pocl", precision="double") as ctx:
            c = portacl.gemm(a, b)
    """

    def __init__(self, device=None, precision=None, *, profile=False, cache=True):
        super().__init__(device, precision, profile, cache)

    def __enter__(self):
        _stack().append(self)
        return self

    def __exit__(self, *exc):
        stack = _stack()
        if self in stack:
            stack.remove(self)
        self.close()
        return False

    def __repr__(self):
        state = "closed" if self.closed else (self.precision or "default precision")
        return f"<portacl.Context {self.device} ({state})>"


def _stack():
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


def default_context():
    """The context of workloads called outside any ``with`` block: made on first use on the device
    PORTACL_DEVICE names, else 'auto', each workload in its own default precision."""
    global _default
    with _default_lock:
        if _default is None or _default.closed:
            _default = Context()
        return _default


def current_context():
    """The innermost ``with portacl.Context(...)`` of this thread, else :func:`default_context`."""
    stack = _stack()
    return stack[-1] if stack else default_context()


def resolve(ctx):
    if ctx is None:
        return current_context()
    if isinstance(ctx, _portacl._Context):
        return ctx
    raise TypeError(f"ctx must be a portacl.Context or None, not {type(ctx).__name__}")
