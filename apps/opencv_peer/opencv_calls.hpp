// OpenCV's CPU path (imgproc) on the operations of the filter bench: the CPU peer `portacl bench`
// prints beside each filter row on a CPU device, timed on the same image in the same run. These calls
// run in the program portacl-opencv-peer (main.cpp) and in their test, never inside `portacl`
// (host/filter/opencv_peer.hpp says why). Built with OpenCV where CMake found its core and imgproc
// (PORTACL_HAVE_OPENCV; Debian's libopencv-imgproc-dev).
#pragma once

#include <string>

#include "portacl/filter.hpp"

namespace portacl::filter {

// "OpenCV 4.6.0", or "" when this build has no OpenCV.
std::string openCvPeerVersion();

// OpenCV's call for the bench operation `spec` (its user mask given as `mask`, a spec string), or
// false when OpenCV has none (the rotating mask) or this build has no OpenCV.
bool openCvPeerHas(const std::string& spec);

// OpenCV's result for `spec` on `img` (8-bit grey) under `border`: what the tests hold to the serial
// reference, so that the bench compares like with like.
io::Image openCvPeerApply(const std::string& spec, const io::Image& img, Border border);

// The median wall time in seconds of OpenCV's call for `spec` on `img` (8-bit grey) under `border`,
// on `threads` threads (cv::setNumThreads), after one untimed call.
double openCvPeerSeconds(const std::string& spec, const io::Image& img, Border border, int threads, int repeats);

}  // namespace portacl::filter
