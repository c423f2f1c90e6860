// Ball lists, radius tables and the filters of molecule reading. The structure parsers (gemmi) live in
// molecule_io_gemmi.cpp so that only one translation unit pays for their headers.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <thread>

#include "io/molecule_io_detail.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/host_cores.hpp"

namespace portacl::io {

MoleculeFormat parseMoleculeFormat(const std::string& text) {
    if (text == "pdb" || text == "ent") return MoleculeFormat::Pdb;
    if (text == "cif" || text == "mmcif") return MoleculeFormat::Cif;
    if (text == "xyzr" || text == "balls") return MoleculeFormat::Xyzr;
    if (text == "auto" || text.empty()) return MoleculeFormat::Auto;
    throw Error("unknown input format '" + text + "' (use pdb, cif or xyzr)");
}

RadiusTable RadiusTable::voronotaDefault() {
    RadiusTable t;
    t.add("*", "*", 1.70);
    t.add("*", "C*", 1.70);
    t.add("*", "N*", 1.55);
    t.add("*", "O*", 1.52);
    t.add("*", "S*", 1.80);
    t.add("*", "P*", 1.80);
    t.add("*", "H*", 1.20);
    return t;
}

RadiusTable RadiusTable::fromFile(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error("cannot open radii file '" + path + "': " + std::strerror(errno));
    RadiusTable t;
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        const auto hash = line.find('#');
        if (hash != std::string::npos) line.resize(hash);
        std::istringstream ls(line);
        std::string res, atom;
        if (!(ls >> res)) continue;  // blank or comment line
        double r = 0;
        if (!(ls >> atom >> r) || !std::isfinite(r) || r < 0)
            throw Error("radii file '" + path + "' line " + std::to_string(lineNo) +
                        " is not 'resName atomName radius' with a non-negative radius");
        t.add(res, atom, r);
    }
    if (t.rows_.empty()) throw Error("radii file '" + path + "' has no 'resName atomName radius' rows");
    return t;
}

void RadiusTable::add(const std::string& resName, const std::string& atomName, double radius) {
    for (auto& row : rows_)
        if (row.res == resName && row.atom == atomName) {
            row.radius = radius;  // a later row overrides, as in Voronota
            return;
        }
    rows_.push_back({resName, atomName, radius});
}

namespace {
// How well a table's atom pattern matches a name: exact beats any prefix, a longer prefix beats a
// shorter one, `*` matches last; -1 for no match.
int atomMatchScore(const std::string& pattern, const std::string& name) {
    if (pattern == name) return 1000;
    if (pattern == "*") return 0;
    if (!pattern.empty() && pattern.back() == '*') {
        const std::string prefix = pattern.substr(0, pattern.size() - 1);
        if (name.compare(0, prefix.size(), prefix) == 0) return 1 + static_cast<int>(prefix.size());
    }
    return -1;
}
}  // namespace

double RadiusTable::find(const std::string& resName, const std::string& atomName) const {
    for (const bool exactResidue : {true, false}) {
        int best = -1;
        double radius = -1;
        for (const auto& row : rows_) {
            if (exactResidue ? row.res != resName : row.res != "*") continue;
            const int score = atomMatchScore(row.atom, atomName);
            if (score > best) best = score, radius = row.radius;
        }
        if (best >= 0) return radius;
    }
    return -1;
}

std::vector<Ball> readBallList(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error("cannot open ball file '" + path + "': " + std::strerror(errno));
    std::vector<Ball> balls;
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        const auto hash = line.find('#');
        if (hash != std::string::npos) line.resize(hash);
        std::istringstream ls(line);
        std::string first;
        if (!(ls >> first)) continue;
        ls.clear();
        ls.str(line);
        Ball b;
        std::string extra;
        if (!(ls >> b.x >> b.y >> b.z >> b.r) || (ls >> extra))
            throw Error("ball file '" + path + "' line " + std::to_string(lineNo) + " is not 'x y z r'");
        if (!std::isfinite(b.x) || !std::isfinite(b.y) || !std::isfinite(b.z) || !std::isfinite(b.r))
            throw Error("ball file '" + path + "' line " + std::to_string(lineNo) + " has a non-finite number");
        if (b.r < 0)
            throw Error("ball file '" + path + "' line " + std::to_string(lineNo) + " has a negative radius");
        balls.push_back(b);
    }
    if (balls.empty()) throw Error("ball file '" + path + "' has no balls");
    return balls;
}

namespace {
std::string lowerExtension(const std::string& path) {
    std::string p = path;
    if (p.size() > 3 && p.compare(p.size() - 3, 3, ".gz") == 0) p.resize(p.size() - 3);
    const auto dot = p.find_last_of('.');
    const auto slash = p.find_last_of('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    std::string ext = p.substr(dot + 1);
    for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

// Looks at the first lines of a plain-text file: PDB records, an mmCIF data block, or numbers.
MoleculeFormat sniffFormat(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error("cannot open '" + path + "': " + std::strerror(errno));
    std::string line;
    bool numbersOnly = true;
    int seen = 0;
    while (std::getline(in, line) && seen < 2000) {
        if (line.compare(0, 5, "data_") == 0 || line.compare(0, 11, "_atom_site.") == 0) return MoleculeFormat::Cif;
        if (line.compare(0, 6, "ATOM  ") == 0 || line.compare(0, 6, "HETATM") == 0) return MoleculeFormat::Pdb;
        const auto hash = line.find('#');
        std::istringstream ls(line.substr(0, hash));
        std::string tok;
        int n = 0;
        while (ls >> tok) {
            char* end = nullptr;
            std::strtod(tok.c_str(), &end);
            if (*end != '\0') numbersOnly = false;
            ++n;
        }
        if (n != 0 && n != 4) numbersOnly = false;
        if (n) ++seen;
    }
    if (numbersOnly && seen > 0) return MoleculeFormat::Xyzr;
    throw Error("'" + path + "' is neither PDB nor mmCIF nor an 'x y z r' ball list");
}

bool isWater(const std::string& res) { return res == "HOH" || res == "WAT" || res == "DOD" || res == "H2O"; }
}  // namespace

std::vector<Frame> readMolecule(const std::string& path, const MoleculeOptions& options) {
    MoleculeFormat format = options.format;
    if (format == MoleculeFormat::Auto) {
        const std::string ext = lowerExtension(path);
        if (ext == "pdb" || ext == "ent") format = MoleculeFormat::Pdb;
        else if (ext == "cif" || ext == "mmcif") format = MoleculeFormat::Cif;
        else if (ext == "xyzr" || ext == "balls") format = MoleculeFormat::Xyzr;
        else format = sniffFormat(path);
    }
    if (format == MoleculeFormat::Xyzr) {
        Frame f;
        f.balls = readBallList(path);
        f.recordCount = f.balls.size();
        for (std::size_t i = 0; i < f.balls.size(); ++i) f.records.push_back(i);
        return {f};
    }
    // A .pdb that holds no PDB records (or a .cif that is not CIF) is refused before gemmi sees it.
    if (path.size() < 3 || path.compare(path.size() - 3, 3, ".gz") != 0) {
        const MoleculeFormat seen = sniffFormat(path);
        if (seen == MoleculeFormat::Xyzr)
            throw Error("'" + path + "' is neither PDB nor mmCIF (it looks like a ball list: read it in the xyzr format)");
        format = seen;
    }

    const std::vector<RawModel> models = readStructureAtoms(path, format == MoleculeFormat::Cif);
    const RadiusTable table = options.radiiFile.empty() ? RadiusTable::voronotaDefault()
                                                        : RadiusTable::fromFile(options.radiiFile);
    // Model m's frame: its atoms filtered and given radii.
    auto frameOf = [&](const RawModel& model) {
        Frame f;
        f.recordCount = model.atoms.size();
        for (std::size_t i = 0; i < model.atoms.size(); ++i) {
            const RawAtom& a = model.atoms[i];
            if (a.hetero && !options.hetero) continue;
            if (isWater(a.label.resName) && !options.waters) continue;
            if (a.hydrogen && !options.hydrogens) continue;
            // Voronota's rule: no alternate location, or the one labelled A or 1.
            const std::string& alt = a.label.altLoc;
            if (!options.allAltlocs && !(alt.empty() || alt == "A" || alt == "1")) continue;
            if (!std::isfinite(a.x) || !std::isfinite(a.y) || !std::isfinite(a.z))
                throw Error("atom " + std::to_string(a.label.serial) + " (" + a.label.resName + " " +
                            a.label.atomName + ") in '" + path + "' has a non-finite coordinate");
            const double r = table.find(a.label.resName, a.label.atomName);
            if (r < 0)
                throw Error("the radii table has no entry for atom " + a.label.atomName + " (element " +
                            a.label.element + ") of residue " + a.label.resName +
                            "; add a row for it or a '* *' default row");
            f.balls.push_back({a.x, a.y, a.z, r});
            f.labels.push_back(a.label);
            f.records.push_back(i);
        }
        return f;
    };
    std::vector<Frame> frames;
    std::size_t records = 0;
    if (!options.allModels || models.size() < 64) {
        for (const auto& model : models) {
            records += model.atoms.size();
            Frame f = frameOf(model);
            if (f.balls.empty()) continue;
            frames.push_back(std::move(f));
            if (!options.allModels) break;
        }
    } else {
        // Thousands of models (a trajectory written as models): filtered on several threads, the
        // first failure in file order reported.
        std::vector<Frame> each(models.size());
        std::vector<std::exception_ptr> errors(models.size());
        std::atomic<std::size_t> next{0};
        auto work = [&] {
            for (std::size_t m; (m = next++) < models.size();) {
                try {
                    each[m] = frameOf(models[m]);
                } catch (...) {
                    errors[m] = std::current_exception();
                }
            }
        };
        const unsigned threads = std::min(16u, portacl::usableCores());
        std::vector<std::thread> helpers;
        for (unsigned t = 1; t < threads; ++t) helpers.emplace_back(work);
        work();
        for (auto& h : helpers) h.join();
        for (std::size_t m = 0; m < models.size(); ++m) {
            if (errors[m]) std::rethrow_exception(errors[m]);
            records += models[m].atoms.size();
            if (!each[m].balls.empty()) frames.push_back(std::move(each[m]));
        }
    }
    if (records == 0)
        throw Error("'" + path + "' has no atom records" +
                    (format == MoleculeFormat::Cif ? std::string(" (no _atom_site table with coordinates)") : std::string(" (no ATOM or HETATM lines)")));
    if (frames.empty())
        throw Error("'" + path + "' has no atoms left after filtering (" + std::to_string(records) +
                    " atom records; hetero atoms, waters and hydrogens are left out by default: see --hetero, --waters, --hydrogens)");
    return frames;
}

std::string formatBalls(const Frame& frame) {
    std::ostringstream os;
    os << std::setprecision(15);
    for (std::size_t i = 0; i < frame.balls.size(); ++i) {
        const Ball& b = frame.balls[i];
        os << b.x << ' ' << b.y << ' ' << b.z << ' ' << b.r;
        if (i < frame.labels.size()) {
            const AtomLabel& l = frame.labels[i];
            auto orDot = [](const std::string& s) { return s.empty() ? std::string(".") : s; };
            os << " # " << l.serial << ' ' << orDot(l.chain) << ' ' << l.resSeq << ' ' << l.resName << ' '
               << l.atomName << ' ' << orDot(l.altLoc) << ' ' << orDot(l.insCode);
        }
        os << '\n';
    }
    return os.str();
}

}  // namespace portacl::io
