// The peers' pointer encodings, the checks of DEMs and pointer grids, and streams by threshold.
#include <cmath>
#include <sstream>

#include "drainage_detail.hpp"
#include "portacl/drainage.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::drainage {
namespace {

// Codes of directions 0..7 (E, NE, N, NW, W, SW, S, SE) in each encoding.
constexpr int kEsri[8] = {1, 128, 64, 32, 16, 8, 4, 2};
constexpr int kTauDem[8] = {1, 2, 3, 4, 5, 6, 7, 8};
constexpr int kRichDem[8] = {5, 4, 3, 2, 1, 8, 7, 6};
constexpr int kWhitebox[8] = {2, 1, 128, 64, 32, 16, 8, 4};

const int* codes(Encoding e) {
    switch (e) {
        case Encoding::Esri: return kEsri;
        case Encoding::TauDem: return kTauDem;
        case Encoding::RichDem: return kRichDem;
        case Encoding::Whitebox: return kWhitebox;
    }
    return kTauDem;
}

std::string accepted(Encoding e) {
    switch (e) {
        case Encoding::Esri: return "1, 2, 4, ..., 128, or 0 for no flow";
        case Encoding::TauDem: return "1 to 8, or 0 for no flow";
        case Encoding::RichDem: return "1 to 8, or 0 for no flow";
        case Encoding::Whitebox: return "1, 2, 4, ..., 128, or 0 for no flow";
    }
    return "";
}

}  // namespace

Encoding parseEncoding(const std::string& name) {
    if (name == "esri") return Encoding::Esri;
    if (name == "taudem") return Encoding::TauDem;
    if (name == "richdem") return Encoding::RichDem;
    if (name == "whitebox") return Encoding::Whitebox;
    throw Error("the encoding must be esri, taudem, richdem or whitebox, not '" + name + "'");
}

const char* encodingName(Encoding e) {
    switch (e) {
        case Encoding::Esri: return "esri";
        case Encoding::TauDem: return "taudem";
        case Encoding::RichDem: return "richdem";
        case Encoding::Whitebox: return "whitebox";
    }
    return "";
}

int encodeDirection(std::uint8_t direction, Encoding e) { return direction < 8 ? codes(e)[direction] : 0; }

int decodeDirection(double code, Encoding e) {
    if (code == 0) return kNoFlow;
    for (int k = 0; k < 8; ++k)
        if (code == codes(e)[k]) return k;
    return -1;
}

DirectionGrid decodeDirections(const io::Raster& pointers, Encoding e) {
    DirectionGrid g;
    g.frame = pointers.frame;
    g.source = pointers.path;
    g.dir.resize(pointers.size());
    bool any = false;
    for (std::size_t i = 0; i < pointers.size(); ++i) {
        if (pointers.isNoData(i)) {
            g.dir[i] = kNoData;
            continue;
        }
        const int d = decodeDirection(pointers.values[i], e);
        if (d < 0) {
            std::ostringstream v;
            v << pointers.values[i];
            throw Error(pointers.path + " has the code " + v.str() + " at row " + std::to_string(i / pointers.cols()) +
                        ", column " + std::to_string(i % pointers.cols()) + ", which is not a D8 direction in the " +
                        encodingName(e) + " encoding (" + accepted(e) + ")");
        }
        g.dir[i] = std::uint8_t(d);
        any = true;
    }
    if (!any) throw Error(pointers.path + " holds no cell with data (every cell is NoData)");
    return g;
}

EncodedDirections encodeDirections(const DirectionGrid& g, Encoding e) {
    EncodedDirections out;
    out.type = e == Encoding::TauDem ? io::RasterType::Int16 : io::RasterType::Byte;
    out.noData = e == Encoding::TauDem ? -32768 : 255;
    out.codes.resize(g.dir.size());
    for (std::size_t i = 0; i < g.dir.size(); ++i)
        out.codes[i] = g.dir[i] == kNoData ? out.noData : encodeDirection(g.dir[i], e);
    return out;
}

void validateDem(const io::Raster& dem) {
    bool any = false;
    for (std::size_t i = 0; i < dem.size(); ++i) {
        if (dem.isNoData(i)) continue;
        if (std::isnan(dem.values[i]))
            throw Error(dem.path + " has a NaN height at row " + std::to_string(i / dem.cols()) + ", column " +
                        std::to_string(i % dem.cols()) + " (NaN is not its NoData value)");
        any = true;
    }
    if (!any) throw Error(dem.path + " holds no height: every cell is NoData");
}

std::vector<std::uint8_t> streams(const Accumulation& a, double threshold) {
    std::vector<std::uint8_t> s(a.valid.size());
    for (std::size_t i = 0; i < s.size(); ++i) s[i] = !a.valid[i] ? 255 : a.value(i) >= threshold ? 1 : 0;
    return s;
}

namespace detail {

std::string cycleSentence(const DirectionGrid& g, std::size_t cell) {
    const std::string name = g.source.empty() ? "the direction grid" : g.source;
    return name + " has a cycle of directions through row " + std::to_string(cell / std::size_t(g.frame.cols)) +
           ", column " + std::to_string(cell % std::size_t(g.frame.cols)) + ": its flow never reaches an outlet";
}

void checkGrid(const DirectionGrid& g) {
    if (g.frame.rows <= 0 || g.frame.cols <= 0 || g.dir.size() != g.frame.size())
        throw Error("a direction grid of " + std::to_string(g.dir.size()) + " codes does not match its " +
                    std::to_string(g.frame.rows) + "x" + std::to_string(g.frame.cols) + " frame");
    if (g.frame.size() >= (std::size_t(1) << 31))
        throw Error("a grid of " + std::to_string(g.frame.size()) + " cells is larger than the 2^31 cells one piece holds");
    for (std::size_t i = 0; i < g.dir.size(); ++i)
        if (g.dir[i] > kNoFlow && g.dir[i] != kNoData)
            throw Error("a direction grid holds the byte " + std::to_string(g.dir[i]) + " at row " +
                        std::to_string(i / std::size_t(g.frame.cols)) + ", column " +
                        std::to_string(i % std::size_t(g.frame.cols)) + " (0..7, kNoFlow or kNoData expected)");
}

void checkWeights(const DirectionGrid& g, const AccumulationOptions& opt) {
    if (opt.weights && opt.weights->size() != g.dir.size())
        throw Error("the weight grid has " + std::to_string(opt.weights->size()) + " cells, the direction grid " +
                    std::to_string(g.dir.size()));
    if (opt.precision == Precision::Mixed) throw Error("accumulation runs in float or double, not mixed precision");
}

long downstreamOf(const DirectionGrid& g, std::size_t i) {
    const std::uint8_t d = g.dir[i];
    if (d >= kNoFlow) return -1;
    const int cols = g.frame.cols;
    const int r = int(i / std::size_t(cols)) + kRowOffset[d], c = int(i % std::size_t(cols)) + kColOffset[d];
    if (r < 0 || r >= g.frame.rows || c < 0 || c >= cols) return -1;
    const std::size_t n = std::size_t(r) * cols + c;
    return g.dir[n] == kNoData ? -1 : long(n);
}

namespace {

// Walks the directions downstream from every cell in the order of index, each cell once; calls
// onCycle(i) for each cycle of directions met, with the cell where the walk closed it, and stops
// as soon as onCycle returns true.
template <typename OnCycle>
void walkCycles(const DirectionGrid& g, OnCycle&& onCycle) {
    // 0 unseen, 1 on the walk in progress, 2 done (it reaches an outlet or a cycle already met).
    std::vector<std::uint8_t> state(g.dir.size(), 0);
    std::vector<std::size_t> walk;
    for (std::size_t s = 0; s < g.dir.size(); ++s) {
        walk.clear();
        std::size_t i = s;
        for (;;) {
            if (state[i] == 2) break;
            if (state[i] == 1) {  // a new cycle through i
                if (onCycle(i)) return;
                break;
            }
            state[i] = 1;
            walk.push_back(i);
            const long next = downstreamOf(g, i);
            if (next < 0) break;
            i = std::size_t(next);
        }
        for (auto w : walk) state[w] = 2;
    }
}

}  // namespace

long cycleCell(const DirectionGrid& g) {
    long cell = -1;
    walkCycles(g, [&](std::size_t i) {
        cell = long(i);
        return true;
    });
    return cell;
}

long smallestCycleCell(const DirectionGrid& g) {
    long smallest = -1;
    walkCycles(g, [&](std::size_t i) {
        std::size_t j = i;
        do {
            if (smallest < 0 || long(j) < smallest) smallest = long(j);
            j = std::size_t(downstreamOf(g, j));
        } while (j != i);
        return false;
    });
    return smallest;
}

void finish(Accumulation& a, const DirectionGrid& g, const AccumulationOptions& opt) { finish(a, NoDataCells(g), opt); }

void finish(Accumulation& a, NoDataCells noData, const AccumulationOptions& opt) {
    if (opt.includeSelf) return;
    for (std::size_t i = 0; i < a.valid.size(); ++i) {
        if (noData(i)) continue;
        if (!a.weighted()) a.counts[i] -= 1;
        else if (opt.precision == Precision::Float) a.sums[i] = double(float(a.sums[i]) - float((*opt.weights)[i]));
        else a.sums[i] -= (*opt.weights)[i];
    }
}

}  // namespace detail
}  // namespace portacl::drainage
