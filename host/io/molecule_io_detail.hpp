// Internal: the atoms of a structure file before filtering, as the gemmi reader hands them over.
#pragma once

#include <string>
#include <vector>

#include "portacl/io/molecule.hpp"

namespace portacl::io {

struct RawAtom {
    double x, y, z;
    bool hetero, hydrogen;
    AtomLabel label;
};
struct RawModel {
    std::vector<RawAtom> atoms;  // in file order
};

// Every model of a PDB (cif=false) or mmCIF file, through gemmi. Throws portacl::Error with one
// sentence when gemmi cannot parse the file.
std::vector<RawModel> readStructureAtoms(const std::string& path, bool cif);

}  // namespace portacl::io
