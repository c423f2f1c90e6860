// portacl-opencv-peer: OpenCV's CPU path on one filter bench operation, for `portacl bench`, which
// runs it as a process of its own (host/filter/opencv_peer.hpp says why).
//
//   portacl-opencv-peer --version                 prints "OpenCV 4.6.0"
//   portacl-opencv-peer --has SPEC                exit 0 when OpenCV has a call for SPEC, 1 when not
//   portacl-opencv-peer --time SPEC IMAGE BORDER THREADS REPEATS
//                                                 prints the median seconds of the call on IMAGE
//                                                 (8-bit grey) on THREADS threads
// Errors: one sentence on stderr, exit 2.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "opencv_calls.hpp"
#include "portacl/io/image.hpp"

using namespace portacl;

namespace {

int usage() {
    std::fprintf(stderr, "usage: portacl-opencv-peer --version | --has SPEC | --time SPEC IMAGE BORDER THREADS REPEATS\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::string mode = argc > 1 ? argv[1] : "";
        if (mode == "--version" && argc == 2) {
            std::printf("%s\n", filter::openCvPeerVersion().c_str());
            return 0;
        }
        if (mode == "--has" && argc == 3) return filter::openCvPeerHas(argv[2]) ? 0 : 1;
        if (mode == "--time" && argc == 7) {
            const io::Image img = io::readImage(argv[3]);
            const double s = filter::openCvPeerSeconds(argv[2], img, filter::parseBorder(argv[4]), std::atoi(argv[5]), std::atoi(argv[6]));
            std::printf("%.9g\n", s);
            return 0;
        }
        return usage();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "portacl-opencv-peer: %s\n", e.what());
        return 2;
    }
}
