// Serial C++ reference of the directional P-simple thinning (thinPSimple): per pass and border
// direction, P is marked over the volume as it stands, then every P-simple voxel of P is removed at
// once. The neighbourhood tests are written from the definitions, on 3x3x3 arrays and breadth-first
// searches, so that the device's bit-mask shortcuts (cl/skeleton.cl) are held to them.
#include <array>
#include <cstdlib>
#include <vector>

#include "portacl/skeleton.hpp"
#include "skeleton_detail.hpp"

namespace portacl::skeleton {
namespace detail {
namespace {

constexpr int kCentre = 13;

int offsetsAway(int i) { return std::abs(i / 9 - 1) + std::abs(i / 3 % 3 - 1) + std::abs(i % 3 - 1); }

bool adjacent(int i, int j, bool faceOnly) {
    const int dz = std::abs(i / 9 - j / 9), dy = std::abs(i / 3 % 3 - j / 3 % 3), dx = std::abs(i % 3 - j % 3);
    return faceOnly ? dz + dy + dx == 1 : dz <= 1 && dy <= 1 && dx <= 1 && i != j;
}

// The components of `set` restricted to `inside` (centre always out), with faceOnly 6-adjacency, else
// 26-adjacency; counted only when they hold a voxel for which `counts` is true.
int components(const NeighbourCube& set, bool faceOnly, bool (*inside)(int), bool (*counts)(int)) {
    std::array<bool, 27> seen{};
    int n = 0;
    for (int s = 0; s < 27; ++s) {
        if (s == kCentre || !set[s] || !inside(s) || seen[s]) continue;
        bool counted = false;
        int stack[27], top = 0;
        stack[top++] = s;
        seen[s] = true;
        while (top) {
            const int i = stack[--top];
            counted = counted || counts(i);
            for (int j = 0; j < 27; ++j)
                if (j != kCentre && set[j] && inside(j) && !seen[j] && adjacent(i, j, faceOnly)) {
                    seen[j] = true;
                    stack[top++] = j;
                }
        }
        n += counted;
    }
    return n;
}

bool anyNeighbour(int) { return true; }
bool in18(int i) { return offsetsAway(i) <= 2; }
bool faceNeighbour(int i) { return offsetsAway(i) == 1; }

}  // namespace

// T26(x, Y): the 26-components of Y among x's 26 neighbours.
int topologicalNumber26(const NeighbourCube& y) { return components(y, false, anyNeighbour, anyNeighbour); }

// T6(x, Y): the 6-components of Y among x's 18 neighbours that hold a face neighbour of x.
int topologicalNumber6(const NeighbourCube& y) { return components(y, true, in18, faceNeighbour); }

bool isSimple(const NeighbourCube& object) {
    NeighbourCube background;
    for (int i = 0; i < 27; ++i) background[i] = !object[i];
    return topologicalNumber26(object) == 1 && topologicalNumber6(background) == 1;
}

// Bertrand's local characterisation (as Pink's mctopo3d_P_simple states it): with R = X \ P and X̄ the
// background, T26(x, R) = 1, T26(x, R ∪ {y}) = 1 for every y of P among the 26 neighbours,
// T6(x, X̄) = 1, and T6(x, X̄ ∪ {y}) = 1 for every y of P among the 6 face neighbours.
bool isPSimple(const NeighbourCube& object, const NeighbourCube& inP) {
    NeighbourCube rest, background;
    for (int i = 0; i < 27; ++i) rest[i] = object[i] && !inP[i], background[i] = !object[i];
    if (topologicalNumber26(rest) != 1 || topologicalNumber6(background) != 1) return false;
    for (int y = 0; y < 27; ++y) {
        if (y == kCentre || !inP[y]) continue;
        rest[y] = 1;
        const bool keepsOne = topologicalNumber26(rest) == 1;
        rest[y] = 0;
        if (!keepsOne) return false;
        if (!faceNeighbour(y)) continue;
        background[y] = 1;
        const bool keepsOneBackground = topologicalNumber6(background) == 1;
        background[y] = 0;
        if (!keepsOneBackground) return false;
    }
    return true;
}

}  // namespace detail

io::BinaryVolume thinPSimpleReference(const io::BinaryVolume& v, Stats* stats) {
    validate(v);
    detail::PaddedVolume padded(v);
    std::vector<std::uint8_t>& img = padded.voxels;
    const int py = padded.py, px = padded.px;
    auto idx = [&](int z, int y, int x) { return padded.index(z, y, x); };
    auto cubeOf = [&](const std::vector<std::uint8_t>& a, int z, int y, int x) {
        detail::NeighbourCube c;
        for (int i = 0; i < 27; ++i) c[i] = a[idx(z + i / 9 - 1, y + i / 3 % 3 - 1, x + i % 3 - 1)];
        c[13] = 0;
        return c;
    };
    Stats st;
    std::vector<std::uint8_t> inP(img.size());
    std::vector<std::size_t> members, removed;
    for (bool changed = true; changed;) {
        changed = false;
        ++st.iterations;
        for (const auto& border : detail::kBorders) {
            // P: the direction's border voxels, as the direction starts, that are simple, not end points
            // and not under an overhang (Lohou and Bertrand's masks: a face neighbour across the
            // direction is background while its own neighbour in the direction is object).
            std::fill(inP.begin(), inP.end(), std::uint8_t(0));
            members.clear();
            auto underOverhang = [&](int z, int y, int x) {
                for (const auto& e : detail::kBorders) {
                    if (e[0] * border[0] + e[1] * border[1] + e[2] * border[2] != 0) continue;  // not across
                    if (!img[idx(z + e[0], y + e[1], x + e[2])] && img[idx(z + e[0] + border[0], y + e[1] + border[1], x + e[2] + border[2])])
                        return true;
                }
                return false;
            };
            for (int z = 1; z <= v.nz; ++z)
                for (int y = 1; y <= v.ny; ++y)
                    for (int x = 1; x <= v.nx; ++x) {
                        if (!img[idx(z, y, x)] || img[idx(z + border[0], y + border[1], x + border[2])] || underOverhang(z, y, x))
                            continue;
                        const detail::NeighbourCube c = cubeOf(img, z, y, x);
                        int neighbours = 0;
                        for (const auto b : c) neighbours += b;
                        if (neighbours == 1 || !detail::isSimple(c)) continue;
                        inP[idx(z, y, x)] = 1;
                        members.push_back(idx(z, y, x));
                    }
            // Every P-simple voxel of P, decided on the image as the direction started, removed together.
            removed.clear();
            for (const std::size_t p : members) {
                const int z = int(p / (std::size_t(py) * px)), y = int(p / px % py), x = int(p % px);
                if (detail::isPSimple(cubeOf(img, z, y, x), cubeOf(inP, z, y, x))) removed.push_back(p);
            }
            for (const std::size_t p : removed) img[p] = 0;
            st.candidates += removed.size();
            changed = changed || !removed.empty();
        }
    }
    if (stats) *stats = st;
    return padded.unpadded(v);
}

}  // namespace portacl::skeleton
