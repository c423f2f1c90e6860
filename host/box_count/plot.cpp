// The log-log plot of the box counts: decade ticks on both axes, the counts as squares, the fitted
// lines over their ranges, a legend of dimensions; drawn on io::Canvas.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "io/canvas.hpp"
#include "portacl/box_count.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::boxcount {
namespace {

constexpr io::Rgb kBlue = {31, 119, 180}, kOrange = {255, 127, 14}, kGrid = {225, 225, 225};

std::string decadeLabel(int e) { return e == 0 ? "1" : e == 1 ? "10" : e == 2 ? "100" : "1e" + std::to_string(e); }

std::string legend(const Fit& f) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(4) << "D=" << f.dimension << " R2=" << f.r2 << " s=" << f.first << ".." << f.last;
    return s.str();
}

}  // namespace

void writePlot(const std::string& path, const Result& r) {
    const bool offsets = !r.offsetMean.empty();
    std::vector<double> xs, ys;  // log10 of the sides and counts shown
    for (std::size_t i = 0; i < r.sizes.size(); ++i) {
        if (r.counts[i] > 0) xs.push_back(std::log10(r.sizes[i])), ys.push_back(std::log10(double(r.counts[i])));
        if (offsets && r.offsetMean[i] > 0) ys.push_back(std::log10(r.offsetMean[i]));
    }
    if (xs.size() < 2) throw Error("the plot needs at least two sides with a positive count");
    const int x0 = int(std::floor(*std::min_element(xs.begin(), xs.end()))), x1 = int(std::ceil(*std::max_element(xs.begin(), xs.end())));
    const int y0 = int(std::floor(*std::min_element(ys.begin(), ys.end()))), y1 = int(std::ceil(*std::max_element(ys.begin(), ys.end())));
    const int decX = std::max(1, x1 - x0), decY = std::max(1, y1 - y0);
    const int left = 86, right = 24, top = 64, bottom = 56, w = 560, h = 400;
    io::Canvas cv(left + w + right, top + h + bottom);
    auto px = [&](double lx) { return left + int(std::lround((lx - x0) / decX * w)); };
    auto py = [&](double ly) { return top + h - int(std::lround((ly - y0) / decY * h)); };

    for (int e = x0; e <= x0 + decX; ++e) {  // decades: grid, tick, label
        cv.fill(px(e), top, 1, h, kGrid);
        cv.fill(px(e), top + h, 1, 6, io::kInk);
        const std::string l = decadeLabel(e);
        cv.text(px(e) - io::Canvas::textWidth(l) / 2, top + h + 10, l);
    }
    for (int e = y0; e <= y0 + decY; ++e) {
        cv.fill(left, py(e), w, 1, kGrid);
        cv.fill(left - 6, py(e), 6, 1, io::kInk);
        const std::string l = decadeLabel(e);
        cv.text(left - 10 - io::Canvas::textWidth(l), py(e) - 7, l);
    }
    cv.fill(left, top, 1, h + 1, io::kInk);
    cv.fill(left, top + h, w + 1, 1, io::kInk);
    cv.text(left + w / 2 - io::Canvas::textWidth("s") / 2, top + h + 34, "s");
    cv.text(8, top - 24, "N(s)");

    auto fitLine = [&](const Fit& f, io::Rgb c) {  // N = exp(intercept) s^-D over the fit range
        const double a = std::log10(double(f.first)), b = std::log10(double(f.last));
        const double ya = (f.intercept - f.dimension * std::log(double(f.first))) / std::log(10.0);
        const double yb = (f.intercept - f.dimension * std::log(double(f.last))) / std::log(10.0);
        for (int d = -1; d <= 1; ++d) cv.line(px(a), py(ya) + d, px(b), py(yb) + d, c);
    };
    fitLine(r.fit, kBlue);
    if (offsets) fitLine(r.offsetFit, kOrange);
    for (std::size_t i = 0; i < r.sizes.size(); ++i) {
        const int x = px(std::log10(r.sizes[i]));
        if (r.counts[i] > 0) cv.fill(x - 4, py(std::log10(double(r.counts[i]))) - 4, 9, 9, kBlue);
        if (offsets && r.offsetMean[i] > 0) {
            const int y = py(std::log10(r.offsetMean[i]));
            for (int k = -5; k <= 5; ++k)
                for (int t : {-5, 5}) cv.put(x + k, y + t, kOrange), cv.put(x + t, y + k, kOrange);
        }
    }
    cv.text(left + w - io::Canvas::textWidth(legend(r.fit)), 10, legend(r.fit), 2, kBlue);
    if (offsets) cv.text(left + w - io::Canvas::textWidth("8 grids " + legend(r.offsetFit)), 32, "8 grids " + legend(r.offsetFit), 2, kOrange);
    io::writeImage(path, cv.image());
}

}  // namespace portacl::boxcount
