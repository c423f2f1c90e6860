// Parsing of --op specifications, the masks of every named operator, border index mapping and the
// rank-1 (separable) detection of user masks.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>

#include "filter/filter_internal.hpp"
#include "portacl/filter.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::filter {

// Case-insensitive, with OpenCV's spellings too: BORDER_REFLECT_101, cv2.BORDER_REPLICATE, REFLECT101,
// reflect-101, BORDER_DEFAULT (OpenCV's default is reflect101).
Border parseBorder(const std::string& name) {
    std::string key;
    for (char c : name)
        if (c != '_' && c != '-') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const char* prefix : {"cv2.border", "cv.border", "border"})
        if (key.rfind(prefix, 0) == 0 && key.size() > std::string(prefix).size()) {
            key.erase(0, std::string(prefix).size());
            break;
        }
    if (key == "constant") return Border::Constant;
    if (key == "replicate") return Border::Replicate;
    if (key == "reflect") return Border::Reflect;
    if (key == "reflect101" || key == "default") return Border::Reflect101;
    if (key == "wrap") return Border::Wrap;
    throw Error("unknown border mode '" + name + "' (use constant, replicate, reflect, reflect101 or wrap, or OpenCV's BORDER_* names).");
}

const char* borderName(Border b) {
    switch (b) {
        case Border::Constant: return "constant";
        case Border::Replicate: return "replicate";
        case Border::Reflect: return "reflect";
        case Border::Reflect101: return "reflect101";
        case Border::Wrap: return "wrap";
    }
    return "?";
}

int borderIndex(int p, int n, Border b) {
    if (p >= 0 && p < n) return p;
    switch (b) {
        case Border::Constant: return -1;
        case Border::Replicate: return p < 0 ? 0 : n - 1;
        case Border::Wrap: return ((p % n) + n) % n;
        case Border::Reflect:
        case Border::Reflect101: {
            if (n == 1) return 0;
            const int delta = b == Border::Reflect101 ? 1 : 0;
            // Mirror until inside (more than one reflection only when the window exceeds the image).
            while (p < 0 || p >= n) {
                if (p < 0) p = -p - 1 + delta;
                else p = 2 * n - p - 1 - delta;
            }
            return p;
        }
    }
    return -1;
}

namespace {

using Mask = std::vector<double>;

[[noreturn]] void bad(const std::string& spec, const std::string& why) {
    throw Error("bad operation '" + spec + "': " + why + ".");
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> parts;
    std::string cur;
    std::istringstream in(s);
    while (std::getline(in, cur, sep)) parts.push_back(cur);
    if (!s.empty() && s.back() == sep) parts.push_back("");
    return parts;
}

int parseOddSize(const std::string& spec, const std::string& text, int maxSize) {
    std::size_t used = 0;
    int k = 0;
    try {
        k = std::stoi(text, &used);
    } catch (...) {
        bad(spec, "the size '" + text + "' is not a number");
    }
    if (used != text.size()) bad(spec, "the size '" + text + "' is not a whole number");
    if (k < 1 || k % 2 == 0) bad(spec, "the size must be odd and positive, not " + text);
    if (k > maxSize) bad(spec, "the size must be at most " + std::to_string(maxSize));
    return k;
}

double parseNumber(const std::string& spec, const std::string& text, const std::string& what) {
    std::size_t used = 0;
    double v = 0;
    try {
        v = std::stod(text, &used);
    } catch (...) {
        bad(spec, what + " '" + text + "' is not a number");
    }
    if (used != text.size() || !std::isfinite(v)) bad(spec, what + " '" + text + "' is not a number");
    return v;
}

Mask outer(const std::vector<double>& col, const std::vector<double>& row) {
    Mask m(col.size() * row.size());
    for (std::size_t y = 0; y < col.size(); ++y)
        for (std::size_t x = 0; x < row.size(); ++x) m[y * row.size() + x] = col[y] * row[x];
    return m;
}

// OpenCV's getGaussianKernel (getGaussianKernelBitExact in OpenCV 4.6): fixed tables for sizes up
// to 9 with sigma <= 0, else the sampled Gaussian scaled by the inverse of its sum, with sigma <= 0
// meaning 0.15 k + 0.35 (= 0.3((k-1)/2 - 1) + 0.8, fused as OpenCV computes it). The arithmetic
// follows OpenCV's step by step so that the fixed-point rounding of the integer plan meets the
// same values (OpenCV's exponential is its soft float's; the C library's agrees to an ulp).
std::vector<double> gaussian1d(int k, double sigma) {
    static const std::vector<std::vector<double>> small = {
        {1.0},
        {0.25, 0.5, 0.25},
        {0.0625, 0.25, 0.375, 0.25, 0.0625},
        {0.03125, 0.109375, 0.21875, 0.28125, 0.21875, 0.109375, 0.03125},
        {4 / 256.0, 13 / 256.0, 30 / 256.0, 51 / 256.0, 60 / 256.0, 51 / 256.0, 30 / 256.0, 13 / 256.0, 4 / 256.0}};
    if (sigma <= 0 && k <= 9) return small[k / 2];
    if (sigma <= 0) sigma = std::fma(static_cast<double>(k), 0.15, 0.35);
    const double scale = -0.125 / (sigma * sigma);  // x below is twice the offset from the centre
    const int half = (k - 1) / 2;
    std::vector<double> g(k);
    double sum = 0;
    for (int i = 0, x = 1 - k; i < half; ++i, x += 2) {
        g[i] = std::exp(static_cast<double>(x * x) * scale);
        sum += g[i];
    }
    sum = sum * 2 + 1;
    const double inverse = 1 / sum;
    for (int i = 0; i < half; ++i) g[i] = g[k - 1 - i] = g[i] * inverse;
    g[half] = inverse;
    return g;
}

std::vector<double> binomial1d(int k) {
    std::vector<double> b(1, 1.0);
    for (int i = 1; i < k; ++i) {
        std::vector<double> n(b.size() + 1, 0.0);
        for (std::size_t j = 0; j < b.size(); ++j) {
            n[j] += b[j];
            n[j + 1] += b[j];
        }
        b = n;
    }
    return b;
}

Mask transpose3(const Mask& m) {
    Mask t(9);
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x) t[x * 3 + y] = m[y * 3 + x];
    return t;
}

// The 8 compass masks: the base mask's outer ring rotated one step (45 degrees) at a time.
std::vector<Mask> compassMasks(const Mask& base) {
    static const int ring[8] = {0, 1, 2, 5, 8, 7, 6, 3};  // clockwise from the top-left corner
    std::vector<Mask> masks;
    for (int r = 0; r < 8; ++r) {
        Mask m(9, 0.0);
        m[4] = base[4];
        for (int i = 0; i < 8; ++i) m[ring[(i + r) % 8]] = base[ring[i]];
        masks.push_back(m);
    }
    return masks;
}

Combine parseCombine(const std::string& spec, const std::string& text) {
    if (text == "l1" || text == "") return Combine::L1;
    if (text == "l2") return Combine::L2;
    if (text == "dir") return Combine::Direction;
    if (text == "x") return Combine::X;
    if (text == "y") return Combine::Y;
    bad(spec, "the gradient output must be l1, l2, dir, x or y, not '" + text + "'");
}

constexpr double kMaxMaskValue = 1e6;

// Reads a mask: rows of numbers separated by blanks or commas, '#' starts a comment; rows by lines
// (files) or ';' (inline).
Mask readMask(const std::string& spec, const std::string& text, bool inlineRows, int& width, int& height) {
    std::vector<std::vector<double>> rows;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line, inlineRows ? ';' : '\n')) {
        line = line.substr(0, line.find('#'));
        std::replace(line.begin(), line.end(), ',', ' ');
        std::istringstream ls(line);
        std::vector<double> row;
        std::string tok;
        while (ls >> tok) {
            const double v = parseNumber(spec, tok, "the mask value");
            // A stated range: integer masks are factored with gcds of their values as 64-bit integers.
            if (!std::isfinite(v) || std::fabs(v) > kMaxMaskValue)
                bad(spec, "the mask value " + tok + " is outside [-1e6, 1e6]");
            row.push_back(v);
            if (int(row.size()) > kMaxMask) bad(spec, "the mask is wider than " + std::to_string(kMaxMask));
        }
        if (!row.empty()) rows.push_back(row);
        if (int(rows.size()) > kMaxMask) bad(spec, "the mask is taller than " + std::to_string(kMaxMask));
    }
    if (rows.empty()) bad(spec, "the mask is empty");
    for (const auto& r : rows)
        if (r.size() != rows[0].size()) bad(spec, "the mask's rows differ in length");
    height = static_cast<int>(rows.size());
    width = static_cast<int>(rows[0].size());
    if (width % 2 == 0 || height % 2 == 0)
        bad(spec, "the mask is " + std::to_string(width) + "x" + std::to_string(height) + "; both sides must be odd");
    if (width > kMaxMask || height > kMaxMask) bad(spec, "the mask is larger than " + std::to_string(kMaxMask) + "x" + std::to_string(kMaxMask));
    Mask m;
    for (const auto& r : rows) m.insert(m.end(), r.begin(), r.end());
    return m;
}

// Masks under kSeparableMinTaps run in one 2-D pass even when they have rank 1: a 3x3 sum from the
// local tile costs less than writing and re-reading an intermediate plane (2 bytes moved per 8-bit
// pixel instead of 10). The choice belongs to the operation, not the device, so that every device
// and the reference run the same arithmetic.
void dropSmallFactors(Operation& op) {
    if (op.width * op.height < kSeparableMinTaps) {
        op.rowFactor.clear();
        op.colFactor.clear();
    }
}

bool looksInline(const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789+-.eE,; ") == std::string::npos;
}

}  // namespace

bool separate(const std::vector<double>& m, int w, int h, std::vector<double>& col, std::vector<double>& row) {
    // Pivot on the largest entry: col = its column, row = its row / pivot; accept when col x row
    // reproduces every entry (exactly for integer masks, to 1e-12 relative otherwise).
    std::size_t piv = 0;
    for (std::size_t i = 1; i < m.size(); ++i)
        if (std::fabs(m[i]) > std::fabs(m[piv])) piv = i;
    const double p = m[piv];
    if (p == 0) return false;
    const int pi = static_cast<int>(piv) / w, pj = static_cast<int>(piv) % w;
    col.assign(h, 0);
    row.assign(w, 0);
    for (int y = 0; y < h; ++y) col[y] = m[y * w + pj];
    for (int x = 0; x < w; ++x) row[x] = m[pi * w + x] / p;
    // Integer masks: scale the row to the smallest integers so that both factors stay integer.
    bool integer = true;
    for (double v : m) integer = integer && v == std::floor(v);
    if (integer) {
        const int rp = pj;  // row[rp] == 1
        long g = 0;
        for (int x = 0; x < w; ++x) g = std::gcd(g, static_cast<long>(std::llround(m[pi * w + x])));
        const double scale = m[pi * w + rp] / static_cast<double>(g);  // row * scale is integer
        for (double& v : row) v = std::round(v * scale);
        for (double& v : col) v /= scale;
        for (double v : col)
            if (v != std::floor(v)) return false;
    }
    const double tol = integer ? 0 : 1e-12 * std::fabs(p);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            if (std::fabs(col[y] * row[x] - m[y * w + x]) > tol) return false;
    return true;
}

Operation parseOperation(const std::string& spec) {
    const auto parts = split(spec, ':');
    const std::string name = parts.empty() ? "" : parts[0];
    const auto arg = [&](std::size_t i) { return i < parts.size() ? parts[i] : std::string(); };
    const auto maxArgs = [&](std::size_t n) {
        if (parts.size() > n + 1) bad(spec, "too many parameters (the operation list gives each one's parameters)");
    };
    Operation op;
    op.spec = spec;
    if (name == "conv") {
        // conv:FILE[:sum] or conv:1,2,1;2,4,2;1,2,1[:sum]
        std::string source = arg(1), text;
        bool divide = false;
        if (parts.size() >= 3 && parts.back() == "sum") {
            divide = true;
            source = spec.substr(5, spec.size() - 5 - 4);
        } else {
            source = spec.substr(std::min<std::size_t>(5, spec.size()));
        }
        if (source.empty()) bad(spec, "give a mask file or inline rows, e.g. conv:mask.txt or conv:1,2,1;2,4,2;1,2,1");
        const bool inlineRows = looksInline(source);
        if (inlineRows) {
            text = source;
        } else {
            std::ifstream f(source);
            if (!f) bad(spec, "cannot read the mask file " + source);
            std::ostringstream ss;
            ss << f.rdbuf();
            text = ss.str();
        }
        op.masks.push_back(readMask(spec, text, inlineRows, op.width, op.height));
        if (divide) {
            double sum = 0;
            for (double v : op.masks[0]) sum += v;
            if (sum == 0) bad(spec, "the mask sums to zero, so it cannot be divided by its sum");
            op.divisor = sum;
        }
        if (!separate(op.masks[0], op.width, op.height, op.colFactor, op.rowFactor)) {
            op.colFactor.clear();
            op.rowFactor.clear();
        }
        dropSmallFactors(op);
    } else if (name == "box" || name == "binomial" || name == "gaussian") {
        maxArgs(name == "gaussian" ? 2 : 1);
        const int k = parseOddSize(spec, arg(1).empty() ? "3" : arg(1), kMaxMask);
        op.width = op.height = k;
        if (name == "box") {
            op.rowFactor.assign(k, 1.0);
            op.colFactor.assign(k, 1.0);
            op.divisor = static_cast<double>(k) * k;
        } else if (name == "binomial") {
            op.rowFactor = op.colFactor = binomial1d(k);
            op.divisor = std::pow(4.0, k - 1);
        } else {
            const double sigma = arg(2).empty() ? 0.0 : parseNumber(spec, arg(2), "sigma");
            op.gaussianKernel = op.rowFactor = op.colFactor = gaussian1d(k, sigma);
        }
        op.masks.push_back(outer(op.colFactor, op.rowFactor));
        dropSmallFactors(op);
    } else if (name == "median") {
        maxArgs(1);
        op.kind = Operation::Kind::Median;
        op.width = op.height = parseOddSize(spec, arg(1).empty() ? "3" : arg(1), kMaxMedian);
    } else if (name == "threshold") {
        maxArgs(2);
        op.kind = Operation::Kind::ThresholdMean;
        op.width = op.height = parseOddSize(spec, arg(1).empty() ? "3" : arg(1), kMaxMask);
        if (arg(2).empty()) bad(spec, "give the threshold T, e.g. threshold:3:20");
        op.threshold = parseNumber(spec, arg(2), "the threshold");
        if (op.threshold < 0) bad(spec, "the threshold must not be negative");
    } else if (name == "rotating") {
        maxArgs(1);
        op.kind = Operation::Kind::RotatingMask;
        op.width = op.height = parseOddSize(spec, arg(1).empty() ? "3" : arg(1), 15);
        if (op.width < 3) bad(spec, "the rotating mask's windows must be at least 3x3");
    } else if (name == "roberts" || name == "prewitt" || name == "sobel" || name == "scharr") {
        maxArgs(1);
        op.combine = parseCombine(spec, arg(1));
        Mask gx;
        if (name == "roberts") {
            // 2x2 masks anchored at their top-left cell, placed in a 3x3 centred on that cell.
            op.masks = {{0, 0, 0, 0, 1, 0, 0, 0, -1}, {0, 0, 0, 0, 0, 1, 0, -1, 0}};
        } else {
            if (name == "prewitt") gx = {-1, 0, 1, -1, 0, 1, -1, 0, 1};
            if (name == "sobel") gx = {-1, 0, 1, -2, 0, 2, -1, 0, 1};
            if (name == "scharr") gx = {-3, 0, 3, -10, 0, 10, -3, 0, 3};
            op.masks = {gx, transpose3(gx)};
        }
    } else if (name == "compass") {
        maxArgs(2);
        const std::string family = arg(1).empty() ? "sobel" : arg(1);
        Mask base;
        if (family == "sobel") base = {-1, 0, 1, -2, 0, 2, -1, 0, 1};
        else if (family == "kirsch") base = {-5, 3, 3, -5, 0, 3, -5, 3, 3};
        else if (family == "robinson") base = {-1, 1, 1, -1, -2, 1, -1, 1, 1};
        else bad(spec, "the compass family must be sobel, kirsch or robinson, not '" + family + "'");
        if (arg(2) == "dir") op.combine = Combine::MaxIndex;
        else if (arg(2).empty() || arg(2) == "max") op.combine = Combine::Max;
        else bad(spec, "the compass output must be max or dir, not '" + arg(2) + "'");
        op.masks = compassMasks(base);
    } else if (name == "laplace") {
        maxArgs(2);
        const std::string nb = arg(1).empty() ? "4" : arg(1), size = arg(2).empty() ? "3" : arg(2);
        if (nb != "4" && nb != "8") bad(spec, "the Laplace neighbourhood must be 4 or 8, not '" + nb + "'");
        if (size != "3" && size != "5") bad(spec, "the Laplace size must be 3 or 5, not '" + size + "'");
        if (size == "3") {
            op.masks = {nb == "4" ? Mask{0, 1, 0, 1, -4, 1, 0, 1, 0} : Mask{1, 1, 1, 1, -8, 1, 1, 1, 1}};
        } else {
            op.width = op.height = 5;
            if (nb == "8") {
                Mask m(25, 1.0);
                m[12] = -24;
                op.masks = {m};
            } else {  // OpenCV's Laplacian(ksize=5): d2/dx2 + d2/dy2 of the 5x5 Sobel derivatives
                const std::vector<double> s = {1, 4, 6, 4, 1}, d = {1, 0, -2, 0, 1};
                Mask a = outer(s, d), b = outer(d, s);
                for (int i = 0; i < 25; ++i) a[i] += b[i];
                op.masks = {a};
            }
        }
    } else if (name == "grey" || name == "gray") {
        maxArgs(1);
        op.kind = Operation::Kind::Grey;
        if (arg(1) == "floor") op.greyFloor = true;
        else if (!arg(1).empty()) bad(spec, "grey takes no parameter but 'floor'");
    } else if (name == "float") {
        maxArgs(0);
        op.kind = Operation::Kind::ToFloat;
    } else {
        std::string names;
        for (const auto& h : operationList())
            for (const auto& n : split(h.syntax.substr(0, h.syntax.find_first_of(":[ ")), '|'))
                if (names.find(" " + n + ",") == std::string::npos) names += " " + n + ",";
        names.pop_back();
        throw Error("unknown operation '" + name + "'; the operations are" + names + ".");
    }
    return op;
}

std::vector<OperationHelp> operationList() {
    return {
        {"conv:FILE[:sum] | conv:ROW;ROW;...[:sum]", "correlation with a user mask (odd sides up to 31), from a file of rows or inline; :sum divides by the sum of the coefficients; a rank-1 mask runs as two 1-D passes"},
        {"box[:K]", "mean over a KxK window (default 3)"},
        {"binomial[:K]", "weighted mean with binomial weights (K=3: [1 2 1]x[1 2 1]/16)"},
        {"gaussian[:K[:SIGMA]]", "Gaussian smoothing, OpenCV's kernel (SIGMA <= 0 or omitted: from K)"},
        {"median[:K]", "median of the KxK window (K odd, up to 15)"},
        {"threshold:K:T", "averaging with a threshold: the KxK mean where it differs from the pixel by at most T, else the pixel"},
        {"rotating[:K]", "rotating mask: of the KxK windows that contain the pixel (K*K of them), the mean of the one with least variance (default K=3)"},
        {"roberts|prewitt|sobel|scharr[:l1|l2|dir|x|y]", "gradient: |Gx|+|Gy| (l1, default), sqrt(Gx^2+Gy^2) (l2), direction in degrees (dir, float output), Gx or Gy alone"},
        {"compass[:sobel|kirsch|robinson[:max|dir]]", "8-direction compass operator: the largest of the 8 rotated masks' responses, or its direction in degrees (float)"},
        {"laplace[:4|8[:3|5]]", "Laplace operator, 4- or 8-neighbour, 3x3 or 5x5 (laplace:4:5 is OpenCV's Laplacian ksize=5)"},
        {"grey[:floor]", "colour to grey, 0.299 R + 0.587 G + 0.114 B, rounded (floor: the thesis's truncation)"},
        {"float", "convert samples to 32-bit float (values kept): later operations keep sign and never saturate"},
    };
}

void validate(const io::Image& in, const std::vector<Operation>& ops) {
    int channels = in.channels;
    for (const auto& op : ops) {
        // A window larger than the image (a 1xN image under a 3x3 mask) is fine: the border rule is
        // applied as often as it takes (borderIndex), as OpenCV's borderInterpolate does.
        if (op.kind == Operation::Kind::Grey) {
            if (channels < 3) throw Error("'" + op.spec + "' needs a colour image, this one has " + std::to_string(channels) + " channel(s).");
            channels = channels == 4 ? 2 : 1;
        }
    }
}

}  // namespace portacl::filter
