// Runs portacl-opencv-peer for the filter bench (opencv_peer.hpp): the image goes to it as a PGM file
// in a scratch folder, its answer comes back on its standard output.
#include "filter/opencv_peer.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "bench/peer_process.hpp"
#include "portacl/bench.hpp"

namespace portacl::filter {
namespace {

namespace fs = std::filesystem;

bool executable(const std::string& path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0; }

std::string peerProgram() {
    static const std::string path = [] {
        if (const char* env = std::getenv("PORTACL_OPENCV_PEER"); env && *env) return std::string(env);
        std::error_code ec;
        const fs::path self = fs::read_symlink("/proc/self/exe", ec);
        if (!ec && executable((self.parent_path() / "portacl-opencv-peer").string())) return (self.parent_path() / "portacl-opencv-peer").string();
#ifdef PORTACL_INSTALLED_OPENCV_PEER
        if (executable(PORTACL_INSTALLED_OPENCV_PEER)) return std::string(PORTACL_INSTALLED_OPENCV_PEER);
#endif
        return std::string();
    }();
    return path;
}

// The program's exit status and first line of output for `args` (already quoted).
int runPeer(const bench::ScratchFolder& scratch, const std::string& args, std::string& line) {
    std::vector<std::string> lines;
    const int rc = bench::runPeerCommand(scratch, shellQuote(peerProgram()) + " " + args, lines);
    line = lines.empty() ? std::string() : lines.front();
    return rc;
}

}  // namespace

OpenCvPeerTiming timeOpenCvPeer(const std::string& spec, const io::Image& img, Border border, int threads, int repeats) {
    OpenCvPeerTiming t;
    if (!executable(peerProgram())) {
        t.peer = "OpenCV: not in this build";
        return t;
    }
    bench::ScratchFolder scratch("portacl-opencv-peer");
    if (!scratch.ok()) {
        t.peer = "OpenCV: no scratch folder for its image";
        return t;
    }
    std::string version, answer;
    if (runPeer(scratch, "--version", version) != 0 || version.empty()) {
        t.peer = "OpenCV: " + peerProgram() + " did not run";
        return t;
    }
    if (runPeer(scratch, "--has " + shellQuote(spec), answer) != 0) {
        t.peer = "OpenCV: no such call";
        return t;
    }
    const std::string image = scratch.file("image.pgm");
    io::writeImage(image, img);
    std::ostringstream args;
    args << "--time " << shellQuote(spec) << ' ' << shellQuote(image) << ' ' << borderName(border) << ' ' << threads << ' ' << repeats;
    if (runPeer(scratch, args.str(), answer) != 0) {
        t.peer = "OpenCV: " + answer;
        return t;
    }
    t.seconds = std::atof(answer.c_str());
    t.peer = version + ", " + threadsText(unsigned(threads));
    return t;
}

}  // namespace portacl::filter
