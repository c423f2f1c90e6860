"""Image filtering with OpenCV's border names."""

from . import _portacl

# OpenCV's cv2.BORDER_* values, for callers who pass the constant itself.
_OPENCV_BORDERS = {0: "constant", 1: "replicate", 2: "reflect", 3: "wrap", 4: "reflect101"}


def _border_name(border):
    if isinstance(border, str):
        return border
    if isinstance(border, int) and not isinstance(border, bool):
        if border in _OPENCV_BORDERS:
            return _OPENCV_BORDERS[border]
        raise ValueError(f"border {border} is none of OpenCV's BORDER_CONSTANT (0), BORDER_REPLICATE (1), "
                         "BORDER_REFLECT (2), BORDER_WRAP (3), BORDER_REFLECT_101 (4)")
    raise TypeError(f"border must be a name or an OpenCV BORDER_* constant, not {type(border).__name__}")


def filter(image, ops, *, border="reflect101", border_value=0.0, precision=None, ctx=None):
    """Runs image operations in order on the device, the image staying there between them.

    image: a (height, width) or (height, width, channels) array of uint8, uint16 or float32, channels
    interleaved (1 to 4, as OpenCV holds them; the alpha channel passes through). ops: one operation
    or a list, in the syntax of ``portacl filter --op`` ('median:5', 'sobel', 'gauss:9:2',
    'conv:mask.txt', ...; :func:`filter_operations` lists them). border: 'constant', 'replicate',
    'reflect', 'reflect101' (the default, OpenCV's BORDER_DEFAULT), 'wrap', OpenCV's names
    ('BORDER_REFLECT_101') or its cv2.BORDER_* constants; border_value is the constant border's value.
    precision: the arithmetic of float images ('float' or 'double'; integer images are exact).
    Returns an array of the input's layout (the dtype an operation produces: float32 after
    'direction' or 'float').
    """
    return _portacl._filter(image, ops, _border_name(border), float(border_value),
                            precision, ctx)


def filter_reference(image, ops, *, border="reflect101", border_value=0.0, precision=None):
    """The serial C++ reference of :func:`filter`, on the host."""
    return _portacl.reference._filter(image, ops, _border_name(border), float(border_value), precision)
