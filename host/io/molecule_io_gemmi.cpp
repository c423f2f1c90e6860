// The atom records of PDB and mmCIF files, in file order. PDB lines are read by their columns here;
// mmCIF goes through gemmi's CIF parser (header-only 0.5.x), and both through gemmi's gzip reader.
// gemmi's structure readers are not used: they gather the atoms of a residue number together, which
// reorders MD water boxes whose residue numbers repeat, and they need auth_seq_id.
#include <gemmi/cif.hpp>
#include <gemmi/gz.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <cstdlib>
#include <map>
#include <string_view>
#include <thread>

#include "io/molecule_io_detail.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/host_cores.hpp"

namespace portacl::io {

namespace {

std::string trimmed(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// Columns [from, to] (1-based, inclusive) of a fixed-column line, trimmed.
std::string columns(const std::string& line, std::size_t from, std::size_t to) {
    if (line.size() < from) return "";
    return trimmed(line.substr(from - 1, to - from + 1));
}

bool parseDouble(const std::string& text, double* out) {
    if (text.empty()) return false;
    char* end = nullptr;
    *out = std::strtod(text.c_str(), &end);
    return end && *end == '\0';
}

int parseIntOr(const std::string& text, int fallback) {
    if (text.empty()) return fallback;
    char* end = nullptr;
    const long v = std::strtol(text.c_str(), &end, 10);
    return end && *end == '\0' ? static_cast<int>(v) : fallback;
}

std::string upper(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

// Voronota's normalisation of numbered names: "1HB" is "HB1".
std::string normalizedAtomName(const std::string& name) {
    if (!name.empty() && name[0] >= '1' && name[0] <= '9') {
        const auto letter = name.find_first_not_of("0123456789");
        if (letter != std::string::npos) return name.substr(letter) + name.substr(0, letter);
    }
    return name;
}

// Hydrogen (or deuterium) by the element column; by the atom name's first letter when that is blank.
bool isHydrogen(const std::string& element, const std::string& atomName) {
    if (!element.empty()) return element == "H" || element == "D";
    return !atomName.empty() && atomName[0] == 'H';
}

// "." and "?" are CIF's null values.
std::string cifValue(const std::string& raw) {
    if (gemmi::cif::is_null(raw)) return "";
    return gemmi::cif::as_string(raw);
}

// The PDB records of [data, data + size), whose first line is line `lineNo` of the file, appended to
// `models` (a new model at the first atom after MODEL or ENDMDL); true when an END record ended them.
bool readPdbLines(const std::string& path, const char* data, std::size_t size, int lineNo, std::vector<RawModel>& models) {
    bool closed = false;  // an ENDMDL was seen: the next atom starts a new frame
    std::size_t pos = 0;
    --lineNo;
    while (pos < size) {
        std::size_t end = pos;
        while (end < size && data[end] != '\n') ++end;
        std::string line(data + pos, end - pos);
        pos = end + 1;
        ++lineNo;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const std::string record = columns(line, 1, 6);
        if (record == "MODEL" || record == "ENDMDL") {
            // Frames are numbered in file order, so the model number itself is not read: it may be
            // right-justified in columns 11-14 as the format says, left-justified, or repeated.
            closed = true;
        } else if (record == "END") {
            return true;
        } else if (record == "ATOM" || record == "HETATM") {
            if (closed && !models.back().atoms.empty()) models.emplace_back();
            closed = false;
            RawAtom a;
            if (!parseDouble(columns(line, 31, 38), &a.x) || !parseDouble(columns(line, 39, 46), &a.y) ||
                !parseDouble(columns(line, 47, 54), &a.z))
                throw Error("'" + path + "' line " + std::to_string(lineNo) +
                            " is an atom record without x, y, z in columns 31-54");
            a.hetero = record == "HETATM";
            a.label.serial = parseIntOr(columns(line, 7, 11), 0);
            a.label.atomName = normalizedAtomName(columns(line, 13, 16));
            a.label.altLoc = columns(line, 17, 17);
            a.label.resName = columns(line, 18, 20);
            a.label.chain = columns(line, 21, 22);
            a.label.resSeq = parseIntOr(columns(line, 23, 26), 0);
            a.label.insCode = columns(line, 27, 27);
            a.label.element = upper(columns(line, 77, 78));
            a.hydrogen = isHydrogen(a.label.element, a.label.atomName);
            models.back().atoms.push_back(std::move(a));
        }
    }
    return false;
}

// A multi-model file (a trajectory written as models, thousands of them) is cut before MODEL lines
// into pieces read on several threads; the pieces' models joined in order are the file's models, as
// one reading gives them (a piece begins a new model at its first atom, as its MODEL line would).
std::vector<RawModel> readPdb(const std::string& path, const char* data, std::size_t size) {
    const unsigned threads = std::min(16u, portacl::usableCores());
    std::vector<std::size_t> starts{0};
    if (threads > 1 && size > (std::size_t(4) << 20)) {
        const std::string_view text(data, size);
        const std::size_t target = size / (4 * threads);
        for (std::size_t from = target; from < size;) {
            const std::size_t at = text.find("\nMODEL", from - 1);
            if (at == std::string_view::npos) break;
            const std::size_t line = at + 1, after = line + 5;
            const bool model = after == size || text[after] == ' ' || text[after] == '\t' || text[after] == '\r' || text[after] == '\n';
            if (model) starts.push_back(line);
            from = model ? line + target : line + 1;
        }
    }
    struct Piece {
        std::vector<RawModel> models = std::vector<RawModel>(1);
        int firstLine = 1;
        bool ended = false;
        std::exception_ptr error;
    };
    std::vector<Piece> pieces(starts.size());
    for (std::size_t k = 1; k < starts.size(); ++k)
        pieces[k].firstLine = pieces[k - 1].firstLine + static_cast<int>(std::count(data + starts[k - 1], data + starts[k], '\n'));
    std::atomic<std::size_t> next{0};
    auto work = [&] {
        for (std::size_t k; (k = next++) < pieces.size();) {
            const std::size_t b = starts[k], e = k + 1 < starts.size() ? starts[k + 1] : size;
            try {
                pieces[k].ended = readPdbLines(path, data + b, e - b, pieces[k].firstLine, pieces[k].models);
            } catch (...) {
                pieces[k].error = std::current_exception();
            }
        }
    };
    std::vector<std::thread> helpers;
    for (unsigned t = 1; t < std::min<std::size_t>(threads, pieces.size()); ++t) helpers.emplace_back(work);
    work();
    for (auto& h : helpers) h.join();
    std::vector<RawModel> models(1);
    for (auto& piece : pieces) {
        if (piece.error) std::rethrow_exception(piece.error);  // the first failure in file order
        for (auto& m : piece.models) {
            if (m.atoms.empty()) continue;
            if (models.back().atoms.empty()) models.back() = std::move(m);
            else models.push_back(std::move(m));
        }
        if (piece.ended) break;  // an END record: what follows is not read
    }
    return models;
}

std::vector<RawModel> readCif(const std::string& path) {
    gemmi::cif::Document doc;
    try {
        doc = gemmi::cif::read(gemmi::MaybeGzipped(path));
    } catch (const std::exception& e) {
        throw Error("cannot read '" + path + "' as mmCIF: " + e.what());
    }
    // Column positions: auth_* first and label_* after it, as Voronota reads them.
    // (gemmi's find() needs a required column first.)
    enum { kX, kY, kZ, kGroup, kId, kSymbol, kAuthAtom, kLabelAtom, kAlt, kAuthComp, kLabelComp, kAuthAsym,
           kLabelAsym, kAuthSeq, kLabelSeq, kIns, kModel };
    for (gemmi::cif::Block& block : doc.blocks) {
        gemmi::cif::Table t = block.find("_atom_site.",
                                         {"Cartn_x", "Cartn_y", "Cartn_z", "?group_PDB", "?id", "?type_symbol",
                                          "?auth_atom_id", "?label_atom_id", "?label_alt_id", "?auth_comp_id",
                                          "?label_comp_id", "?auth_asym_id", "?label_asym_id", "?auth_seq_id",
                                          "?label_seq_id", "?pdbx_PDB_ins_code", "?pdbx_PDB_model_num"});
        if (!t.ok() || t.length() == 0) continue;
        const auto pick = [&](int first, int second) { return t.has_column(first) ? first : second; };
        const int atomCol = pick(kAuthAtom, kLabelAtom), compCol = pick(kAuthComp, kLabelComp),
                  asymCol = pick(kAuthAsym, kLabelAsym), seqCol = pick(kAuthSeq, kLabelSeq);
        if (!t.has_column(atomCol) || !t.has_column(compCol))
            throw Error("'" + path + "' has an _atom_site table without atom names or residue names "
                        "(auth_atom_id/label_atom_id, auth_comp_id/label_comp_id)");
        std::vector<RawModel> models;
        std::map<std::string, std::size_t> modelIndex;  // model numbers in order of first appearance
        std::size_t rowNo = 0;
        for (auto row : t) {
            ++rowNo;
            const std::string model = row.has(kModel) ? cifValue(row[kModel]) : "";
            auto it = modelIndex.find(model);
            if (it == modelIndex.end()) it = modelIndex.emplace(model, models.size()).first, models.emplace_back();
            RawAtom a;
            if (!parseDouble(cifValue(row[kX]), &a.x) || !parseDouble(cifValue(row[kY]), &a.y) ||
                !parseDouble(cifValue(row[kZ]), &a.z))
                throw Error("'" + path + "' _atom_site row " + std::to_string(rowNo) + " has no numeric Cartn_x, Cartn_y, Cartn_z");
            const auto text = [&](int col) { return row.has(col) ? cifValue(row[col]) : std::string(); };
            a.hetero = text(kGroup) == "HETATM";
            a.label.serial = parseIntOr(text(kId), 0);
            a.label.atomName = normalizedAtomName(text(atomCol));
            a.label.altLoc = text(kAlt);
            a.label.resName = text(compCol);
            a.label.chain = text(asymCol);
            a.label.resSeq = parseIntOr(text(seqCol), 0);
            a.label.insCode = text(kIns);
            a.label.element = upper(text(kSymbol));
            a.hydrogen = isHydrogen(a.label.element, a.label.atomName);
            models[it->second].atoms.push_back(std::move(a));
        }
        return models;
    }
    return {};
}

}  // namespace

std::vector<RawModel> readStructureAtoms(const std::string& path, bool cif) {
    if (cif) return readCif(path);
    gemmi::MaybeGzipped input(path);
    if (input.is_compressed()) {
        gemmi::CharArray buffer;
        try {
            buffer = input.uncompress_into_buffer();
        } catch (const std::exception& e) {
            throw Error("cannot read '" + path + "': " + e.what());
        }
        return readPdb(path, buffer.data(), buffer.size());
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot open '" + path + "': " + std::strerror(errno));
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return readPdb(path, text.data(), text.size());
}

}  // namespace portacl::io
