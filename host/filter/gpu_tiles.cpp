// Which operations the GPU tile kernels take, and their defines: the integer plan's factors and
// bounds for the separable tile, the key width for the rotating tile, each tile's local memory.
#include "filter/gpu_tiles.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

#include "filter/filter_internal.hpp"

namespace portacl::filter {
namespace {

std::string list(const std::vector<std::int32_t>& v) {
    std::ostringstream s;
    for (std::size_t i = 0; i < v.size(); ++i) s << (i ? "," : "") << v[i];
    return s.str();
}

bool symmetric(const std::vector<std::int32_t>& v) {
    for (std::size_t i = 0; i < v.size() / 2; ++i)
        if (v[i] != v[v.size() - 1 - i]) return false;
    return true;
}

double absSum(const std::vector<std::int32_t>& v) {
    double s = 0;
    for (auto x : v) s += std::fabs(static_cast<double>(x));
    return s;
}

std::size_t roundUp(std::size_t n, std::size_t m) { return (n + m - 1) / m * m; }

// The kernels index a plane with int offsets: planes of fewer than 2^31 samples (and their slack).
bool indexable(int width, int height) { return width >= 1 && height >= 1 && static_cast<double>(width) * height < std::ldexp(1.0, 31) - 64; }

}  // namespace

TileKernel separableTileKernel(const Operation& op, io::PixelType in, int width, int height, Border border,
                               const SeparableTileLayout& l, std::size_t localBytes, bool fp64) {
    TileKernel k;
    if (in != io::PixelType::U8 || op.kind != Operation::Kind::Linear || op.combine != Combine::Single || op.rowFactor.empty() ||
        op.width > 9 || op.height > 9 || !indexable(width, height))
        return k;
    const IntegerPlan plan = planInteger(op, in);
    const double rowBound = 255.0 * absSum(plan.row);      // |row sum|
    const double colBound = rowBound * absSum(plan.col);   // |column sum|
    if (plan.wideIntermediate || rowBound >= std::ldexp(1.0, 31) || (plan.narrow && !l.everyMask)) return k;
    const int rx = op.width / 2, ry = op.height / 2;
    const int inWords = (l.groupY * l.rows + 2 * ry) * (l.groupX + 2);
    const std::size_t bytes = static_cast<std::size_t>(inWords) * 4 + static_cast<std::size_t>(l.groupY * l.rows + 2 * ry) * l.groupX * 16;
    if (bytes > localBytes) return k;
    const int shift = plan.divisor == 1 ? 0 : (plan.divisor & (plan.divisor - 1)) == 0 ? static_cast<int>(std::log2(static_cast<double>(plan.divisor))) : -1;
    // Column sums: int where they fit; double where asked for, exact (every product and partial sum
    // an integer below 2^51, which the kernel's rounding through the bit pattern needs) and the
    // divisor a power of two; else long.
    const bool doubleFits = shift > 0 && shift <= 51 && colBound + static_cast<double>(plan.divisor) < std::ldexp(1.0, 51);
    const int acc = plan.narrow ? 0 : (l.doubleSums && fp64 && doubleFits) ? 2 : 1;
    // No clamp where the result cannot leave [0, 255]: weights of one sign whose gain is at most 1.
    bool nonNegative = true;
    for (auto v : plan.row) nonNegative = nonNegative && v >= 0;
    for (auto v : plan.col) nonNegative = nonNegative && v >= 0;
    const bool noClamp = nonNegative && absSum(plan.row) * absSum(plan.col) <= static_cast<double>(plan.divisor);
    std::ostringstream d;
    d << "-D BORDER=" << static_cast<int>(border) << " -D RX=" << rx << " -D RY=" << ry << " -D ROW_W=" << list(plan.row)
      << " -D COL_W=" << list(plan.col) << " -D ROW_SYM=" << (symmetric(plan.row) ? 1 : 0)
      << " -D COL_SYM=" << (symmetric(plan.col) && 2 * rowBound < std::ldexp(1.0, 31) ? 1 : 0) << " -D ACC=" << acc
      << " -D DIVISOR=" << plan.divisor << " -D SHIFT=" << shift << " -D DIV_NARROW=" << (plan.narrowDivision ? 1 : 0)
      << " -D NO_CLAMP=" << (noClamp ? 1 : 0) << " -D GX=" << l.groupX << " -D GY=" << l.groupY << " -D PY=" << l.rows;
    k.defines = d.str();
    k.groupX = l.groupX;
    k.groupY = l.groupY;
    k.globalX = roundUp((static_cast<std::size_t>(width) + 3) / 4, l.groupX);
    k.globalY = roundUp((static_cast<std::size_t>(height) + l.rows - 1) / l.rows, l.groupY);
    return k;
}

TileKernel rotatingTileKernel(const Operation& op, io::PixelType in, int width, int height, Border border,
                              const RotatingTileLayout& l, std::size_t localBytes) {
    TileKernel k;
    // Windows up to 5x5 may take tiles of their own width (smallTileX).
    const int tileX = l.smallTileX > 0 && op.width <= 5 && op.height <= 5 ? l.smallTileX : l.tileX;
    if (in != io::PixelType::U8 || op.kind != Operation::Kind::RotatingMask || op.width > 9 || op.height > 9 || !indexable(width, height) ||
        tileX % 4 != 0)
        return k;
    const int rh = op.height / 2, n = op.width * op.height;
    int indexBits = 1;
    while ((1 << indexBits) < std::max(op.width, op.height)) ++indexBits;
    // The dispersion n*Q - S^2 is at most n^2 255^2 / 4; with dy and dx below it the key takes 2B more bits.
    const double dispersionTop = static_cast<double>(n) * n * 255.0 * 255.0 / 4;
    const bool wide = std::ldexp(dispersionTop + 1, 2 * indexBits) >= std::ldexp(1.0, 32);
    // The mean carried in the key's low byte, under (D * n + dy * KW + dx): 3x3 windows.
    const bool meanInKey = (dispersionTop * n + n) * 256 < std::ldexp(1.0, 32);
    const std::size_t keyBytes = wide ? 8 : 4;
    const bool rowDots = l.dotsFrom > 0 && op.width >= l.dotsFrom;
    int tileY = l.tileY;
    const auto bytes = [&](int ty) {  // the kernel's three arrays: input words, means, column keys
        const std::size_t groups = tileX / 4 + 2, ih = ty + 4 * rh, ch = ty + 2 * rh;
        return (ih * (tileX / 4 + 4) + 1) * 4 + (meanInKey ? 0 : ch * groups * 4) + ty * groups * 4 * keyBytes;
    };
    while (tileY > 1 && bytes(tileY) > localBytes) tileY /= 2;
    if (bytes(tileY) > localBytes) return k;
    // Walks: one centre column of the tile (tileX + 2 rw of them) a work-item, walkRows output rows each.
    const int columns = tileX + 2 * (op.width / 2), group = l.groupX * l.groupY;
    int walk = l.walkRows;
    if (walk <= 0)
        for (walk = 1; walk < tileY && columns * ((tileY + walk - 1) / walk) > group;) ++walk;
    walk = std::min(walk, tileY);
    std::ostringstream d;
    d << "-D BORDER=" << static_cast<int>(border) << " -D KW=" << op.width << " -D KH=" << op.height << " -D KEY_WIDE=" << (wide ? 1 : 0)
      << " -D KEY_BITS_INDEX=" << indexBits << " -D MEAN_IN_KEY=" << (meanInKey ? 1 : 0)
      << " -D ROW_DOTS=" << (rowDots ? 1 : 0) << " -D DP4A=" << (rowDots && l.dp4a ? 1 : 0) << " -D TX=" << tileX << " -D TY=" << tileY << " -D GX=" << l.groupX << " -D GY=" << l.groupY
      << " -D VR=" << walk;
    k.defines = d.str();
    k.groupX = l.groupX;
    k.groupY = l.groupY;
    k.globalX = (static_cast<std::size_t>(width) + tileX - 1) / tileX * l.groupX;
    k.globalY = (static_cast<std::size_t>(height) + tileY - 1) / tileY * l.groupY;
    return k;
}

}  // namespace portacl::filter
