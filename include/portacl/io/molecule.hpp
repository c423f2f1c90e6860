// Atoms of a molecular structure as balls (centre + van der Waals radius), read from PDB, mmCIF or a
// plain ball list, with Voronota's conventions: balls numbered from 0 in input order, ATOM records only
// by default, radii from a (residue, atom name) table with `*` wildcards.
#pragma once

#include "portacl/export.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace portacl::io {

struct PORTACL_API Ball {
    double x = 0, y = 0, z = 0, r = 0;
};

// What a ball came from (empty for plain ball lists); printed after `#` as Voronota does.
struct PORTACL_API AtomLabel {
    int serial = 0;
    std::string chain, resName, atomName, element, altLoc, insCode;
    int resSeq = 0;
};

// One model of a structure (one frame of an ensemble or trajectory).
struct PORTACL_API Frame {
    std::vector<Ball> balls;
    std::vector<AtomLabel> labels;  // same length as balls, or empty
    // Where each ball's atom stands among its model's atom records, filtered ones included (0-based;
    // same length as balls), and how many records the model has: the atoms of a trajectory's frame.
    std::vector<std::size_t> records;
    std::size_t recordCount = 0;
};

enum class MoleculeFormat { Auto, Pdb, Cif, Xyzr };
// "pdb", "cif"/"mmcif", "xyzr"/"balls"; throws portacl::Error otherwise.
PORTACL_API MoleculeFormat parseMoleculeFormat(const std::string& text);

// Voronota's radius table: rows `resName atomName radius`, `*` as a whole-field wildcard and as a
// trailing prefix wildcard in atom names ("C*"). Lookup prefers an exact residue over `*`, then an exact
// atom name, then the longest matching prefix, then `*`.
class PORTACL_API RadiusTable {
public:
    // Voronota's built-in table (by the first letter of the atom name: C 1.70, N 1.55, O 1.52, S 1.80,
    // P 1.80, H 1.20; anything else 1.70).
    static RadiusTable voronotaDefault();
    // Reads a file in Voronota's format; throws portacl::Error naming the file and line when malformed.
    static RadiusTable fromFile(const std::string& path);

    void add(const std::string& resName, const std::string& atomName, double radius);
    // The radius, or a negative value when no row matches.
    double find(const std::string& resName, const std::string& atomName) const;

private:
    struct Row {
        std::string res, atom;
        double radius;
    };
    std::vector<Row> rows_;
};

struct PORTACL_API MoleculeOptions {
    MoleculeFormat format = MoleculeFormat::Auto;  // Auto: by extension (.pdb/.ent, .cif/.mmcif, .xyzr/.balls), else by content
    std::string radiiFile;      // empty: Voronota's default table
    bool hydrogens = false;     // keep hydrogens (element H or D; by a name starting with H when the element is blank)
    bool hetero = false;        // keep HETATM records (Voronota's --include-heteroatoms)
    bool waters = false;        // keep waters (HOH, WAT, DOD, H2O) when hetero atoms are kept
    bool allAltlocs = false;    // false: atoms with no alternate location or with A or 1 (Voronota); true: all
    bool allModels = true;      // every model becomes a frame; false: the first model only
};

// Reads every frame of a structure or ball file. Throws portacl::Error with one sentence for: a file
// that cannot be read or is neither PDB nor mmCIF nor a ball list, no atoms left after filtering, an
// atom with no radius in the table (named), a non-finite coordinate, or a negative radius.
PORTACL_API std::vector<Frame> readMolecule(const std::string& path, const MoleculeOptions& options = {});

// Plain ball list: `x y z r` per line, anything after `#` ignored (Voronota's format).
PORTACL_API std::vector<Ball> readBallList(const std::string& path);
// Writes balls as Voronota's get-balls-from-atoms-file does (`x y z r # serial chain resSeq resName atomName altLoc iCode`).
PORTACL_API std::string formatBalls(const Frame& frame);

}  // namespace portacl::io
