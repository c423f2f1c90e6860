"""k-Wave's first-order k-space ultrasound solver: k-Wave's input files in, its sensor data out as
NumPy arrays (the layout of its output file), optionally its output file too."""

from ._portacl import kwave as _kwave

simulate = _kwave.simulate

__all__ = ["simulate"]
