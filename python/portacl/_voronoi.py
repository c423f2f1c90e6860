"""The Voronoi diagram of balls, with Voronota's conventions."""

import os
import tempfile

from . import _portacl


def _is_structure(obj):
    module = type(obj).__module__
    return module.startswith("gemmi") or module.startswith("Bio.PDB")


def _with_structure_file(structure, run):
    """Writes a gemmi or Biopython structure as a PDB file for the library's reader (Voronota's
    atom filters and radii apply to it as to a file), runs run(path), and removes the file."""
    with tempfile.TemporaryDirectory(prefix="portacl-") as folder:
        path = os.path.join(folder, "structure.pdb")
        if type(structure).__module__.startswith("gemmi"):
            structure.write_pdb(path)
        else:
            from Bio.PDB import PDBIO
            io = PDBIO()
            io.set_structure(structure)
            io.save(path)
        return run(path)


def _read_options(radii, hydrogens, hetero):
    options = {"hydrogens": bool(hydrogens), "hetero": bool(hetero)}
    if radii is not None:
        options["radii"] = str(radii)
    return options


def voronoi(balls, *, precision=None, radii=None, hydrogens=False, hetero=False, ctx=None):
    """The additively weighted Voronoi diagram of balls (the Euclidean Voronoi diagram of atoms).

    balls: an (N, 4) array of x, y, z, r (N >= 4), the path of a PDB, mmCIF or ball-list file, or a
    gemmi ``Structure`` or Biopython ``Structure`` (its first model; ATOM records, no hydrogens
    unless hydrogens=True, HETATM with hetero=True, radii from Voronota's table or the table file
    ``radii``; a structure object goes through a temporary PDB file). precision: 'mixed' (the default: float
    first, double for the searches float cannot decide), 'float' or 'double'.

    Returns (vertices, edges), NumPy structured arrays in Voronota's order (sorted by quadruple):
    vertices has fields balls (4 ball indices, ascending), x, y, z (the tangent sphere's centre) and
    r (its radius; negative where the balls overlap it); edges has v0, v1 (vertex indices; v1 = -1
    for an edge unbounded beyond v0; -2, -2 for a closed edge with no vertex, -1, -1 for an open
    one), balls (the 3 balls it is equidistant from) and min_radius (its bottleneck).
    """
    options = _read_options(radii, hydrogens, hetero)
    if _is_structure(balls):
        return _with_structure_file(balls, lambda path: _portacl._voronoi(path, precision, options, ctx))
    return _portacl._voronoi(balls, precision, options, ctx)


def voronoi_reference(balls, *, radii=None, hydrogens=False, hetero=False):
    """The serial C++ reference of :func:`voronoi` (double precision, one edge at a time)."""
    options = _read_options(radii, hydrogens, hetero)
    if _is_structure(balls):
        return _with_structure_file(balls, lambda path: _portacl.reference._voronoi(path, options))
    return _portacl.reference._voronoi(balls, options)
