// PDB and mmCIF through gemmi (header-only 0.5.x): the one translation unit that includes its parsers.
#include <gemmi/gz.hpp>
#include <gemmi/mmread.hpp>

#include "io/molecule_io_detail.hpp"
#include "portacl/error.hpp"

namespace portacl::io {

std::vector<RawModel> readStructureAtoms(const std::string& path, bool cif) {
    gemmi::Structure st;
    try {
        st = gemmi::read_structure(gemmi::MaybeGzipped(path), cif ? gemmi::CoorFormat::Mmcif : gemmi::CoorFormat::Pdb);
    } catch (const std::exception& e) {
        throw Error("cannot read '" + path + "' as " + (cif ? "mmCIF" : "PDB") + ": " + e.what());
    }
    std::vector<RawModel> models;
    for (const gemmi::Model& m : st.models) {
        RawModel rm;
        for (const gemmi::Chain& ch : m.chains)
            for (const gemmi::Residue& res : ch.residues)
                for (const gemmi::Atom& a : res.atoms) {
                    RawAtom ra;
                    ra.x = a.pos.x, ra.y = a.pos.y, ra.z = a.pos.z;
                    ra.hetero = res.het_flag == 'H';
                    ra.hydrogen = a.is_hydrogen();
                    ra.label.serial = a.serial;
                    ra.label.chain = ch.name;
                    ra.label.resSeq = res.seqid.num.value;
                    ra.label.resName = res.name;
                    ra.label.atomName = a.name;
                    ra.label.element = a.element.uname();
                    if (a.altloc) ra.label.altLoc = std::string(1, a.altloc);
                    if (res.seqid.icode != ' ' && res.seqid.icode) ra.label.insCode = std::string(1, res.seqid.icode);
                    rm.atoms.push_back(std::move(ra));
                }
        models.push_back(std::move(rm));
    }
    return models;
}

}  // namespace portacl::io
