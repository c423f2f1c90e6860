// Bench case "voronoi": every structure of ../shared/data/pdb (balls as Voronota reads them), on the
// device in the wanted precisions, against the serial reference and, when the voronota binary is on
// the PATH, against Voronota 1.22's calculate-vertices on one core, in the same run, with the vertex
// sets compared. The 2JUY NMR ensemble (traced as one batch) gives frames per second. --quick: 1A8O
// only, in mixed (or, when mixed is not wanted, the first wanted precision).
// Data: the shared data folder (include/portacl/runtime/data_dir.hpp gives the rule).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "portacl/bench.hpp"
#include "portacl/runtime/data_dir.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/progress.hpp"
#include "portacl/voronoi.hpp"

namespace portacl::voronoi {
namespace {

bool exists(const std::string& p) {
    struct stat st;
    return stat(p.c_str(), &st) == 0;
}


double secondsSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Runs voronota calculate-vertices on the balls; returns its wall time (median of `repeats`) and
// fills `out` with its vertices, or returns NaN when voronota is not installed.
double timeVoronota(const std::vector<io::Ball>& balls, int repeats, std::string& out) {
    if (std::system("command -v voronota >/dev/null 2>&1") != 0) return std::nan("");
    const std::string dir = P_tmpdir;
    const std::string in = dir + "/portacl_voronoi_bench_" + std::to_string(getpid()) + ".balls";
    const std::string res = in + ".vertices";
    {
        std::ofstream f(in);
        f.precision(17);
        for (const auto& b : balls) f << b.x << ' ' << b.y << ' ' << b.z << ' ' << b.r << '\n';
    }
    const double s = medianHostSeconds(
        [&] {
            if (std::system(("voronota calculate-vertices < " + in + " > " + res).c_str()) != 0)
                throw Error("voronota calculate-vertices failed in the voronoi benchmark");
        },
        repeats);
    std::ifstream r(res);
    std::stringstream ss;
    ss << r.rdbuf();
    out = ss.str();
    std::remove(in.c_str());
    std::remove(res.c_str());
    return s;
}

// Quadruples that are not in both vertex lists, or whose spheres differ by more than 1e-6 Å (relative
// to r/10 above 10 Å).
std::size_t countDifferences(const std::string& a, const std::string& b) {
    using Key = std::array<int, 4>;
    auto parse = [](const std::string& text) {
        std::multimap<Key, std::array<double, 4>> m;
        std::istringstream in(text);
        Key q;
        std::array<double, 4> s;
        while (in >> q[0] >> q[1] >> q[2] >> q[3] >> s[0] >> s[1] >> s[2] >> s[3]) {
            std::sort(q.begin(), q.end());
            m.insert({q, s});
        }
        return m;
    };
    const auto A = parse(a), B = parse(b);
    std::size_t bad = 0;
    for (const auto& [q, s] : A) {
        auto range = B.equal_range(q);
        bool ok = false;
        for (auto it = range.first; it != range.second && !ok; ++it) {
            double d = 0;
            for (int i = 0; i < 4; ++i) d = std::max(d, std::fabs(s[i] - it->second[i]));
            ok = d <= 1e-6 * std::max(1.0, std::fabs(s[3]) / 10);
        }
        if (!ok) ++bad;
    }
    for (const auto& [q, s] : B)
        if (!A.count(q)) ++bad;
    return bad;
}

std::vector<BenchRecord> runVoronoiBench(Context& ctx, const BenchOptions& opts) {
    std::vector<BenchRecord> out;
    const std::string dir = dataDirectory();
    if (dir.empty() || !exists(dir + "/pdb")) {
        BenchRecord r;
        r.workload = "voronoi";
        r.note = "skipped: " + (dir.empty() ? dataDirectoryHint() : "the data folder " + dir + " has no pdb folder");
        out.push_back(r);
        return out;
    }
    std::vector<std::string> files = {"pdb/1A8O.pdb"};
    if (!opts.quick)
        files = {"pdb/1A8O.pdb", "pdb/2BEG.pdb", "pdb/voronota_1EMA/structure.pdb", "pdb/2XHE.pdb", "pdb/7DDO.pdb", "pdb/4UN3.cif"};
    std::vector<Precision> modes;
    for (Precision p : {Precision::Float, Precision::Mixed, Precision::Double})
        if (runsOn(ctx, opts, p, "voronoi", out)) modes.push_back(p);
    // --quick: one mode, mixed when it is wanted (the documented default), else the first wanted.
    if (opts.quick && modes.size() > 1) {
        const bool mixed = std::find(modes.begin(), modes.end(), Precision::Mixed) != modes.end();
        modes = {mixed ? Precision::Mixed : modes.front()};
    }
    const int repeats = opts.quick ? 1 : std::max(1, std::min(opts.repeats, 5));

    Progress structures("structures", files.size(), "structures");
    std::size_t structuresDone = 0;
    for (const std::string& rel : files) {
        structures.update(structuresDone++);
        io::MoleculeOptions mo;
        mo.allModels = false;
        const auto frames = io::readMolecule(dir + "/" + rel, mo);
        const auto& balls = frames[0].balls;
        std::string name = rel.substr(rel.find('/') + 1);
        name = name.substr(0, name.find('.'));
        if (name == "voronota_1EMA/structure") name = "1EMA";

        double serial = std::nan("");
        std::string refText;
        if (opts.serial) {
            const auto t0 = std::chrono::steady_clock::now();
            refText = formatVertices(computeReference(balls));
            serial = secondsSince(t0);
        }
        std::string voronotaText;
        const double voronota = timeVoronota(balls, repeats, voronotaText);

        for (Precision p : modes) {
            Options o;
            o.precision = p;
            Diagram d = compute(ctx, balls, o);  // warm-up (kernel build)
            const double s = medianHostSeconds([&] { d = compute(ctx, balls, o); }, repeats);
            BenchRecord r;
            r.workload = "voronoi/" + name;
            r.size = std::to_string(balls.size()) + " balls";
            r.precision = precisionName(p);
            r.seconds = s;
            r.serialSeconds = serial;
            std::ostringstream note;
            note << d.vertices.size() << " vertices, " << d.edges.size() << " edges, " << d.solvedEdges
                 << " searches in " << d.waves << " waves, phase 2: " << d.phase2Edges;
            if (d.phase2 != Phase2Arithmetic::None) note << " (" << phase2ArithmeticName(d.phase2) << ")";
            note << "; wall time of the whole diagram";
            const std::string text = formatVertices(d);
            if (!refText.empty()) note << "; vs serial reference: " << countDifferences(text, refText) << " differing";
            if (!std::isnan(voronota))
                note << "; voronota 1.22 calculate-vertices (one core): " << voronota << " s, speed-up "
                     << voronota / s << "x, " << countDifferences(text, voronotaText) << " vertices differ";
            r.note = note.str();
            out.push_back(r);
        }
    }

    if (!opts.quick) {
        // The NMR ensemble: 24 frames, one diagram each, traced together as one batch.
        const auto models = io::readMolecule(dir + "/pdb/nmr_neopetrosiamide_2JUY.pdb");
        std::vector<std::vector<io::Ball>> frames;
        for (const auto& m : models) frames.push_back(m.balls);
        for (Precision p : modes) {
            Options o;
            o.precision = p;
            computeFrames(ctx, frames, o);
            std::size_t vertices = 0;
            const double s = medianHostSeconds(
                [&] {
                    vertices = 0;
                    for (const auto& d : computeFrames(ctx, frames, o)) vertices += d.vertices.size();
                },
                repeats);
            BenchRecord r;
            r.workload = "voronoi/2JUY-frames";
            r.size = std::to_string(frames.size()) + " frames x " + std::to_string(frames[0].size()) + " balls";
            r.precision = precisionName(p);
            r.seconds = s;
            std::ostringstream note;
            note << frames.size() / s << " frames/s (one batch), " << vertices << " vertices in all";
            r.note = note.str();
            out.push_back(r);
        }
    }
    return out;
}

}  // namespace

PORTACL_REGISTER_BENCH("voronoi", "additively weighted Voronoi vertices of PDB structures (edge tracing in waves) vs Voronota", runVoronoiBench);

}  // namespace portacl::voronoi
