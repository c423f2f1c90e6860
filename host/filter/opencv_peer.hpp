// The filter bench's CPU peer: OpenCV's CPU path on the bench's image, timed by the program
// portacl-opencv-peer (apps/opencv_peer/) in a process of its own. OpenCV loads Debian's TBB, and a
// process that has loaded it can no longer load Intel's OpenCL CPU runtime, which carries a newer TBB
// under the same name: linked into `portacl`, OpenCV hid Intel's runtime from every command.
#pragma once

#include <limits>
#include <string>

#include "portacl/filter.hpp"

namespace portacl::filter {

struct OpenCvPeerTiming {
    std::string peer;  // "OpenCV 4.6.0, 2 threads", or why there is no time ("OpenCV: no such call")
    double seconds = std::numeric_limits<double>::quiet_NaN();
};

// OpenCV's median time for the bench operation `spec` on `img` (8-bit grey) under `border`, on
// `threads` threads, after one untimed call; the program is found beside `portacl` (the build tree),
// where it is installed, or at $PORTACL_OPENCV_PEER.
OpenCvPeerTiming timeOpenCvPeer(const std::string& spec, const io::Image& img, Border border, int threads, int repeats);

}  // namespace portacl::filter
