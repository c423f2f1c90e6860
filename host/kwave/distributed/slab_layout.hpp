// How a grid is split over R ranks (k-Wave's distributed code's 1-D slab decomposition).
//
// Real space: each rank holds a slab of whole planes along the slowest axis (z in 3-D, y in 2-D),
// contiguous in memory as the one-device solver's fields are. Spectral space (the R2C half spectrum,
// shape n0 x n1 x P with n0 the slab axis): each rank holds a slab along the next axis (y in 3-D, the
// half-spectrum's kx in 2-D), transposed so that the slab axis runs fastest, [n1 local][P][n0]:
//   3-D: real [z local][y][x], spectrum [y local][kx][kz]  (n0 = nz, n1 = ny, P = nx/2+1)
//   2-D: real [y local][x],    spectrum [kx local][ky]     (n0 = ny, n1 = nx/2+1, P = 1)
// The spectral operators are applied there, so that each 3-D transform needs one global transpose.
// Ranks take floor(n/R) or one more planes, the first ones the larger share.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "portacl/runtime/error.hpp"

namespace portacl::kwave::distributed {

struct SlabLayout {
    int ranks = 1, rank = 0;
    bool is3D = true;
    std::size_t nx = 1, ny = 1, nz = 1;
    std::size_t n0 = 1, n1 = 1, P = 1;  // the half spectrum as n0 x n1 x P (see above)
    std::size_t plane = 1;              // real points of one plane of the slab axis: ny nx or nx
    std::vector<std::size_t> start0, count0, start1, count1;

    // shape: the grid in C order, {nz, ny, nx} or {ny, nx}.
    SlabLayout(const std::vector<std::size_t>& shape, int rankCount, int thisRank) : ranks(rankCount), rank(thisRank) {
        is3D = shape.size() == 3;
        if (shape.size() < 2 || shape.size() > 3) throw Error("the slab decomposition splits 2-D and 3-D grids");
        nz = is3D ? shape[0] : 1;
        ny = shape[shape.size() - 2];
        nx = shape.back();
        const std::size_t nxr = nx / 2 + 1;
        n0 = is3D ? nz : ny;
        n1 = is3D ? ny : nxr;
        P = is3D ? nxr : 1;
        plane = is3D ? ny * nx : nx;
        const std::size_t r = static_cast<std::size_t>(ranks);
        if (n0 < r || n1 < r)
            throw Error("a " + describe() + " grid cannot be split over " + std::to_string(ranks) + " ranks: the slabs need at least " +
                        std::to_string(ranks) + " planes along " + (is3D ? "z and y" : "y and x/2+1") + "; use at most " +
                        std::to_string(std::min(n0, n1)) + " ranks");
        split(n0, start0, count0);
        split(n1, start1, count1);
    }

    std::string describe() const {
        return std::to_string(nx) + "x" + std::to_string(ny) + (is3D ? "x" + std::to_string(nz) : std::string());
    }
    // This rank's planes of the real fields, its first one, and its real points.
    std::size_t planes() const { return count0[rank]; }
    std::size_t firstPlane() const { return start0[rank]; }
    std::size_t realPoints() const { return planes() * plane; }
    // This rank's complex points of the transposed half spectrum, [count1][P][n0].
    std::size_t spectralPoints() const { return count1[rank] * P * n0; }
    // Complex points of the half spectrum of this rank's real slab before the transpose, [count0][n1][P].
    std::size_t slabSpectrumPoints() const { return count0[rank] * n1 * P; }

private:
    void split(std::size_t n, std::vector<std::size_t>& start, std::vector<std::size_t>& count) const {
        const std::size_t r = static_cast<std::size_t>(ranks);
        start.resize(r);
        count.resize(r);
        std::size_t at = 0;
        for (std::size_t i = 0; i < r; ++i) {
            start[i] = at;
            count[i] = n / r + (i < n % r ? 1 : 0);
            at += count[i];
        }
    }
};

}  // namespace portacl::kwave::distributed
