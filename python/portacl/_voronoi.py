"""The Voronoi diagram of balls, with Voronota's conventions."""

from . import _portacl


def _read_options(radii, hydrogens, hetero):
    options = {"hydrogens": bool(hydrogens), "hetero": bool(hetero)}
    if radii is not None:
        options["radii"] = str(radii)
    return options


def voronoi(balls, *, precision=None, radii=None, hydrogens=False, hetero=False, ctx=None):
    """The additively weighted Voronoi diagram of balls (the Euclidean Voronoi diagram of atoms).

    balls: an (N, 4) array of x, y, z, r (N >= 4), or the path of a PDB, mmCIF or ball-list file
    (its first model; ATOM records, no hydrogens unless hydrogens=True, HETATM with hetero=True,
    radii from Voronota's table or the table file ``radii``). precision: 'mixed' (the default: float
    first, double for the searches float cannot decide), 'float' or 'double'.

    Returns (vertices, edges), NumPy structured arrays in Voronota's order (sorted by quadruple):
    vertices has fields balls (4 ball indices, ascending), x, y, z (the tangent sphere's centre) and
    r (its radius; negative where the balls overlap it); edges has v0, v1 (vertex indices; v1 = -1
    for an edge unbounded beyond v0; -2, -2 for a closed edge with no vertex, -1, -1 for an open
    one), balls (the 3 balls it is equidistant from) and min_radius (its bottleneck).
    """
    return _portacl._voronoi(balls, precision, _read_options(radii, hydrogens, hetero), ctx)


def voronoi_reference(balls, *, radii=None, hydrogens=False, hetero=False):
    """The serial C++ reference of :func:`voronoi` (double precision, one edge at a time)."""
    return _portacl.reference._voronoi(balls, _read_options(radii, hydrogens, hetero))
