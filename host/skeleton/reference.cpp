// Serial C++ reference of Lee-Kashyap-Chu thinning: the candidates of each border collected over the
// volume as it stands, then rechecked one after another in raster order. The neighbourhood tests work
// on a 3x3x3 array: components by a breadth-first search over 26-adjacency, the Euler
// characteristic's change by counting the cells of the removed voxel's closed cube that no other
// object voxel covers.
#include <array>
#include <cstdlib>

#include "portacl/runtime/error.hpp"
#include "portacl/skeleton.hpp"
#include "skeleton_detail.hpp"

namespace portacl::skeleton {
namespace {

using Cube = std::array<std::uint8_t, 27>;  // index (dz+1)*9 + (dy+1)*3 + (dx+1); centre 13

int at(int dz, int dy, int dx) { return (dz + 1) * 9 + (dy + 1) * 3 + (dx + 1); }

// Number of 26-connected pieces of the object voxels of the cube, centre left out.
int pieces(const Cube& c) {
    std::array<bool, 27> seen{};
    int n = 0;
    for (int s = 0; s < 27; ++s) {
        if (s == 13 || !c[s] || seen[s]) continue;
        ++n;
        int stack[27], top = 0;
        stack[top++] = s;
        seen[s] = true;
        while (top) {
            const int i = stack[--top];
            const int z = i / 9, y = i / 3 % 3, x = i % 3;
            for (int j = 0; j < 27; ++j) {
                if (j == 13 || !c[j] || seen[j]) continue;
                if (std::abs(j / 9 - z) <= 1 && std::abs(j / 3 % 3 - y) <= 1 && std::abs(j % 3 - x) <= 1) {
                    seen[j] = true;
                    stack[top++] = j;
                }
            }
        }
    }
    return n;
}

// Change of the Euler characteristic of the union of closed object cubes when the centre is
// removed: its open cube goes (+1), and each face (-1), edge (+1) and vertex (-1) of its closure
// that no other object voxel touches. A cell with offsets (a, b, c) in {-1, 0, 1} (0 along the axes
// the cell spans) is touched by the voxels whose offsets agree with it wherever it is non-zero.
int eulerChangeOfRemoval(const Cube& c) {
    int change = 1;
    for (int a = -1; a <= 1; ++a)
        for (int b = -1; b <= 1; ++b)
            for (int d = -1; d <= 1; ++d) {
                const int fixed = (a != 0) + (b != 0) + (d != 0);  // 1 face, 2 edge, 3 vertex
                if (fixed == 0) continue;
                bool covered = false;
                for (int z = -1; z <= 1 && !covered; ++z)
                    for (int y = -1; y <= 1 && !covered; ++y)
                        for (int x = -1; x <= 1 && !covered; ++x) {
                            if ((z == 0 && y == 0 && x == 0) || (a && z != a && z != 0) || (b && y != b && y != 0) ||
                                (d && x != d && x != 0) || (!a && z) || (!b && y) || (!d && x))
                                continue;
                            covered = c[at(z, y, x)] != 0;
                        }
                if (!covered) change += fixed == 2 ? 1 : -1;
            }
    return change;
}

}  // namespace

void validate(const io::BinaryVolume& v) {
    io::checkBinaryVolume(v, "thinning");
    if (v.count() == 0) throw Error("thinning: the object is empty (no voxel is set)");
}

detail::PaddedVolume::PaddedVolume(const io::BinaryVolume& v)
    : pz(v.nz + 2), py(v.ny + 2), px(v.nx + 2), voxels(std::size_t(pz) * py * px, 0) {
    for (int z = 0; z < v.nz; ++z)
        for (int y = 0; y < v.ny; ++y)
            for (int x = 0; x < v.nx; ++x) voxels[index(z + 1, y + 1, x + 1)] = v.at(z, y, x);
}

io::BinaryVolume detail::PaddedVolume::unpadded(const io::BinaryVolume& v) const {
    io::BinaryVolume out = v;
    for (int z = 0; z < v.nz; ++z)
        for (int y = 0; y < v.ny; ++y)
            for (int x = 0; x < v.nx; ++x) out.mask[out.index(z, y, x)] = voxels[index(z + 1, y + 1, x + 1)];
    return out;
}

io::BinaryVolume thinReference(const io::BinaryVolume& v, Stats* stats) {
    validate(v);
    detail::PaddedVolume padded(v);
    std::vector<std::uint8_t>& img = padded.voxels;
    auto idx = [&](int z, int y, int x) { return padded.index(z, y, x); };
    auto cubeAt = [&](int z, int y, int x) {
        Cube c;
        for (int a = -1; a <= 1; ++a)
            for (int b = -1; b <= 1; ++b)
                for (int d = -1; d <= 1; ++d) c[at(a, b, d)] = img[idx(z + a, y + b, x + d)];
        return c;
    };
    Stats st;
    std::vector<std::array<int, 3>> candidates;
    for (int unchanged = 0; unchanged < 6;) {
        unchanged = 0;
        ++st.iterations;
        for (const auto& border : detail::kBorders) {
            candidates.clear();
            for (int z = 1; z <= v.nz; ++z)
                for (int y = 1; y <= v.ny; ++y)
                    for (int x = 1; x <= v.nx; ++x) {
                        if (!img[idx(z, y, x)] || img[idx(z + border[0], y + border[1], x + border[2])]) continue;
                        const Cube c = cubeAt(z, y, x);
                        int neighbours = 0;
                        for (int i = 0; i < 27; ++i) neighbours += i != 13 && c[i];
                        if (neighbours == 1 || eulerChangeOfRemoval(c) != 0 || pieces(c) != 1) continue;
                        candidates.push_back({z, y, x});
                    }
            st.candidates += candidates.size();
            bool changed = false;
            for (const auto& p : candidates)
                if (pieces(cubeAt(p[0], p[1], p[2])) <= 1) {
                    img[idx(p[0], p[1], p[2])] = 0;
                    changed = true;
                }
            if (!changed) ++unchanged;
        }
    }
    if (stats) *stats = st;
    return padded.unpadded(v);
}

io::BinaryVolume thinSubfieldsReference(const io::BinaryVolume& v, Stats* stats) {
    validate(v);
    detail::PaddedVolume padded(v);
    std::vector<std::uint8_t>& img = padded.voxels;
    auto idx = [&](int z, int y, int x) { return padded.index(z, y, x); };
    Stats st;
    for (bool changed = true; changed;) {
        changed = false;
        ++st.iterations;
        for (const auto& border : detail::kBorders) {
            // The border voxels of this direction, taken from the image as the direction starts.
            std::vector<std::uint8_t> onBorder(img.size(), 0);
            for (int z = 1; z <= v.nz; ++z)
                for (int y = 1; y <= v.ny; ++y)
                    for (int x = 1; x <= v.nx; ++x)
                        onBorder[idx(z, y, x)] = img[idx(z, y, x)] && !img[idx(z + border[0], y + border[1], x + border[2])];
        for (int sub = 0; sub < 8; ++sub)
            // Voxel coordinates (z, y, x) of the unpadded volume with parities (sub >> 2, sub >> 1, sub) & 1.
            for (int z = (sub >> 2) & 1; z < v.nz; z += 2)
                for (int y = (sub >> 1) & 1; y < v.ny; y += 2)
                    for (int x = sub & 1; x < v.nx; x += 2) {
                        if (!img[idx(z + 1, y + 1, x + 1)] || !onBorder[idx(z + 1, y + 1, x + 1)]) continue;
                        Cube c;
                        for (int a = -1; a <= 1; ++a)
                            for (int b = -1; b <= 1; ++b)
                                for (int d = -1; d <= 1; ++d) c[at(a, b, d)] = img[idx(z + 1 + a, y + 1 + b, x + 1 + d)];
                        int neighbours = 0;
                        for (int i = 0; i < 27; ++i) neighbours += i != 13 && c[i];
                        if (neighbours == 1 || eulerChangeOfRemoval(c) != 0 || pieces(c) != 1) continue;
                        // Removed at once: no other voxel of the subfield lies in this one's neighbourhood.
                        img[idx(z + 1, y + 1, x + 1)] = 0;
                        ++st.candidates;
                        changed = true;
                    }
        }
    }
    if (stats) *stats = st;
    return padded.unpadded(v);
}

}  // namespace portacl::skeleton
