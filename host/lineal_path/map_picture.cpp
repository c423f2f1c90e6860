// The PNG picture of a lineal path map: L(dx, dy)/L(0) on a logarithmic colour scale (viridis), with
// axes, ticks and a colour bar, drawn on io::Canvas.
#include <algorithm>
#include <cmath>
#include <string>

#include "io/canvas.hpp"
#include "portacl/io/image.hpp"
#include "portacl/lineal_path/output.hpp"

namespace portacl::lineal {
namespace {

using io::Canvas;
using io::kInk;
using Rgb = io::Rgb;

// viridis at 0, 1/8, ..., 1.
const Rgb kViridis[9] = {{68, 1, 84},    {72, 40, 120},  {62, 74, 137},  {49, 104, 142}, {38, 130, 142},
                         {31, 158, 137}, {53, 183, 121}, {109, 205, 89}, {253, 231, 37}};
const Rgb kZero = {200, 200, 200};  // L = 0: no colour of the scale

Rgb viridis(double u) {
    u = std::min(1.0, std::max(0.0, u)) * 8;
    const int i = std::min(7, static_cast<int>(u));
    const double f = u - i;
    const Rgb a = kViridis[i], b = kViridis[i + 1];
    auto mix = [f](unsigned char x, unsigned char y) { return static_cast<unsigned char>(std::lround(x + (y - x) * f)); };
    return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

std::string decadeLabel(int e) { return e == 0 ? "1" : "1e" + std::to_string(e); }

}  // namespace

void writePng(const std::string& path, const Result& r) {
    const int ml = r.maxLength, m = r.mx;
    const double top = r.L(0, 0, 0);
    // The scale: whole decades from the smallest positive ratio (at most 6 decades) up to 1.
    double smallest = 1;
    for (int dy = -ml; dy <= ml; ++dy)
        for (int dx = -ml; dx <= ml; ++dx) {
            const double v = top > 0 ? r.L(0, dy, dx) / top : 0;
            if (v > 0) smallest = std::min(smallest, v);
        }
    const int low = std::max(-6, std::min(-1, static_cast<int>(std::floor(std::log10(smallest)))));

    const int cell = std::max(1, std::min(16, 520 / m));
    const int side = cell * m;
    const int left = 80, topMargin = 44, bottom = 70, barGap = 24, barWidth = 22, right = 96;
    Canvas cv(left + side + barGap + barWidth + right, topMargin + side + bottom);
    const auto colourOf = [&](double v) { return v > 0 ? viridis((std::log10(v) - low) / -low) : kZero; };

    // The map, dy increasing upwards.
    for (int dy = -ml; dy <= ml; ++dy)
        for (int dx = -ml; dx <= ml; ++dx) {
            const double v = top > 0 ? r.L(0, dy, dx) / top : 0;
            cv.fill(left + (dx + ml) * cell, topMargin + (ml - dy) * cell, cell, cell, colourOf(v));
        }
    // Frame, ticks and labels at -ML, -ML/2, 0, ML/2, ML.
    cv.fill(left - 1, topMargin - 1, side + 2, 1, kInk);
    cv.fill(left - 1, topMargin + side, side + 2, 1, kInk);
    cv.fill(left - 1, topMargin - 1, 1, side + 2, kInk);
    cv.fill(left + side, topMargin - 1, 1, side + 2, kInk);
    for (int t : {-ml, -ml / 2, 0, ml / 2, ml}) {
        const std::string label = std::to_string(t);
        const int x = left + (t + ml) * cell + cell / 2, y = topMargin + (ml - t) * cell + cell / 2;
        cv.fill(x, topMargin + side, 1, 6, kInk);
        cv.text(x - Canvas::textWidth(label) / 2, topMargin + side + 10, label);
        cv.fill(left - 7, y, 6, 1, kInk);
        cv.text(left - 10 - Canvas::textWidth(label), y - 7, label);
    }
    cv.text(left + side / 2 - Canvas::textWidth("dx") / 2, topMargin + side + 38, "dx");
    cv.text(8, topMargin + side / 2 - 7, "dy");
    cv.text(left, 12, r.mz > 1 ? "L(dx,dy)/L(0), dz=0" : "L(dx,dy)/L(0)");

    // The colour bar, 1 at the top, 10^low at the bottom, a tick and a label per decade.
    const int bx = left + side + barGap;
    for (int y = 0; y < side; ++y) cv.fill(bx, topMargin + y, barWidth, 1, viridis(1.0 - (y + 0.5) / side));
    for (int e = 0; e >= low; --e) {
        const int y = topMargin + static_cast<int>(std::lround(double(e) / low * (side - 1)));
        cv.fill(bx + barWidth, y, 5, 1, kInk);
        cv.text(bx + barWidth + 8, y - 7, decadeLabel(e));
    }
    // L = 0 in its own swatch below the bar.
    cv.fill(bx, topMargin + side + 10, barWidth, 14, kZero);
    cv.text(bx + barWidth + 8, topMargin + side + 10, "0");
    io::writeImage(path, cv.image());
}

}  // namespace portacl::lineal
