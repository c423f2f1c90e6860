// OpenCV's CPU path on the filter bench's operations (opencv_calls.hpp), the calls a user of OpenCV
// would make: blur for box masks and rows of equal weights, GaussianBlur, medianBlur, filter2D for
// other masks, Sobel and Scharr as two CV_16S passes whose absolute values are added (the anchors of
// tools/anchors/opencv_filter_anchors.py), Laplacian for the 4-neighbour 3x3 Laplace.
#include "opencv_calls.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "portacl/runtime/error.hpp"

#if PORTACL_HAVE_OPENCV
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#endif

namespace portacl::filter {
namespace {

#if PORTACL_HAVE_OPENCV
int cvBorder(Border b) {
    switch (b) {
        case Border::Constant: return cv::BORDER_CONSTANT;
        case Border::Replicate: return cv::BORDER_REPLICATE;
        case Border::Reflect: return cv::BORDER_REFLECT;
        case Border::Reflect101: return cv::BORDER_REFLECT_101;
        case Border::Wrap: return cv::BORDER_WRAP;
    }
    return cv::BORDER_REFLECT_101;
}

bool startsWith(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

// The OpenCV call for `spec`, or an empty function.
std::function<void(const cv::Mat&, cv::Mat&)> openCvCall(const std::string& spec, Border border) {
    const int b = cvBorder(border);
    Operation op;
    try {
        op = parseOperation(spec);
    } catch (const Error&) {
        return {};
    }
    if (op.kind == Operation::Kind::Median) return [k = op.width](const cv::Mat& s, cv::Mat& d) { cv::medianBlur(s, d, k); };
    if (op.kind != Operation::Kind::Linear) return {};
    const bool gradient = startsWith(spec, "sobel") || startsWith(spec, "scharr");
    if (gradient && (spec == "sobel" || spec == "scharr" || spec == "sobel:l1" || spec == "scharr:l1")) {
        const bool scharr = startsWith(spec, "scharr");
        return [scharr, b](const cv::Mat& s, cv::Mat& d) {
            cv::Mat gx, gy, ax, ay;
            if (scharr) {
                cv::Scharr(s, gx, CV_16S, 1, 0, 1, 0, b);
                cv::Scharr(s, gy, CV_16S, 0, 1, 1, 0, b);
            } else {
                cv::Sobel(s, gx, CV_16S, 1, 0, 3, 1, 0, b);
                cv::Sobel(s, gy, CV_16S, 0, 1, 3, 1, 0, b);
            }
            cv::convertScaleAbs(gx, ax);
            cv::convertScaleAbs(gy, ay);
            cv::add(ax, ay, d);
        };
    }
    if (op.combine != Combine::Single || op.masks.size() != 1) return {};
    if (spec == "laplace" || spec == "laplace:4" || spec == "laplace:4:3")
        return [b](const cv::Mat& s, cv::Mat& d) { cv::Laplacian(s, d, CV_8U, 1, 1, 0, b); };
    if (startsWith(spec, "gaussian")) {
        // gaussian[:K[:SIGMA]]: OpenCV's getGaussianKernel, as ours.
        double sigma = 0;
        const auto second = spec.find(':', 9);
        if (second != std::string::npos) sigma = std::stod(spec.substr(second + 1));
        return [k = op.width, sigma, b](const cv::Mat& s, cv::Mat& d) { cv::GaussianBlur(s, d, cv::Size(k, k), sigma, sigma, b); };
    }
    const auto& m = op.masks[0];
    const bool equal = std::all_of(m.begin(), m.end(), [&](double w) { return w == m[0]; });
    if (equal && m[0] != 0 && std::fabs(op.divisor - m[0] * double(m.size())) < 1e-12 * std::fabs(op.divisor))
        return [w = op.width, h = op.height, b](const cv::Mat& s, cv::Mat& d) { cv::blur(s, d, cv::Size(w, h), cv::Point(-1, -1), b); };
    cv::Mat kernel(op.height, op.width, CV_32F);
    for (int y = 0; y < op.height; ++y)
        for (int x = 0; x < op.width; ++x) kernel.at<float>(y, x) = static_cast<float>(m[std::size_t(y) * op.width + x] / op.divisor);
    return [kernel, b](const cv::Mat& s, cv::Mat& d) { cv::filter2D(s, d, -1, kernel, cv::Point(-1, -1), 0, b); };
}
#endif

}  // namespace

std::string openCvPeerVersion() {
#if PORTACL_HAVE_OPENCV
    return std::string("OpenCV ") + CV_VERSION;
#else
    return "";
#endif
}

bool openCvPeerHas(const std::string& spec) {
#if PORTACL_HAVE_OPENCV
    return static_cast<bool>(openCvCall(spec, Border::Reflect101));
#else
    (void)spec;
    return false;
#endif
}

#if PORTACL_HAVE_OPENCV
namespace {
std::function<void(const cv::Mat&, cv::Mat&)> checkedCall(const std::string& spec, const io::Image& img, Border border) {
    auto call = openCvCall(spec, border);
    if (!call) throw Error("OpenCV has no call for '" + spec + "'");
    if (img.type != io::PixelType::U8 || img.channels != 1) throw Error("the OpenCV peer takes 8-bit grey images");
    return call;
}
}  // namespace
#endif

io::Image openCvPeerApply(const std::string& spec, const io::Image& img, Border border) {
#if PORTACL_HAVE_OPENCV
    const auto call = checkedCall(spec, img, border);
    const cv::Mat src(img.height, img.width, CV_8UC1, const_cast<unsigned char*>(img.data.data()));
    io::Image out = io::makeImage(img.width, img.height, 1, io::PixelType::U8);
    cv::Mat dst(img.height, img.width, CV_8UC1, out.data.data());
    call(src, dst);
    if (dst.data != out.data.data()) throw Error("OpenCV wrote '" + spec + "' elsewhere than into the output");
    return out;
#else
    (void)spec, (void)img, (void)border;
    throw Error("this build has no OpenCV (install libopencv-imgproc-dev and configure again)");
#endif
}

double openCvPeerSeconds(const std::string& spec, const io::Image& img, Border border, int threads, int repeats) {
#if PORTACL_HAVE_OPENCV
    const auto call = checkedCall(spec, img, border);
    const cv::Mat src(img.height, img.width, CV_8UC1, const_cast<unsigned char*>(img.data.data()));
    cv::Mat dst;
    const int before = cv::getNumThreads();
    cv::setNumThreads(std::max(1, threads));
    call(src, dst);  // the output's allocation and OpenCV's thread pool, out of the timing
    std::vector<double> times;  // the median as the bench's medianHostSeconds takes it
    for (int i = 0; i < std::max(1, repeats); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        call(src, dst);
        times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    const std::size_t n = times.size();
    const double s = n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
    cv::setNumThreads(before);
    return s;
#else
    (void)spec, (void)img, (void)border, (void)threads, (void)repeats;
    throw Error("this build has no OpenCV (install libopencv-imgproc-dev and configure again)");
#endif
}

}  // namespace portacl::filter
