// PythonPeer (python_peer.hpp): tools/bench/python_peers.py found in the source tree, where it is
// installed, or at $PORTACL_PYTHON_PEERS.
#include "bench/python_peer.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

#include "portacl/bench.hpp"

namespace portacl::bench {
namespace {

bool readable(const std::string& path) { return !path.empty() && ::access(path.c_str(), R_OK) == 0; }

std::string peerScript() {
    if (const char* env = std::getenv("PORTACL_PYTHON_PEERS"); env && *env) return env;
#ifdef PORTACL_SOURCE_PYTHON_PEERS
    if (readable(PORTACL_SOURCE_PYTHON_PEERS)) return PORTACL_SOURCE_PYTHON_PEERS;
#endif
#ifdef PORTACL_INSTALLED_PYTHON_PEERS
    if (readable(PORTACL_INSTALLED_PYTHON_PEERS)) return PORTACL_INSTALLED_PYTHON_PEERS;
#endif
    return std::string();
}

}  // namespace

PythonPeer::PythonPeer(const std::string& tool) : tool_(tool) {
    const std::string script = peerScript();
    if (!readable(script)) {
        name_ = tool + ": tools/bench/python_peers.py not found";
        return;
    }
    if (!scratch_.ok()) {
        name_ = tool + ": no scratch folder for its files";
        return;
    }
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("PORTACL_PYTHON"); env && *env) candidates.push_back(env);
    candidates.insert(candidates.end(), {"python3", "/usr/bin/python3"});
    for (const std::string& python : candidates) {
        std::vector<std::string> lines;
        const int rc = runPeerCommand(scratch_, shellQuote(python) + " " + shellQuote(script) + " version " + shellQuote(tool), lines);
        const std::string first = lines.empty() ? std::string() : lines.front();
        if (rc == 0 && !first.empty()) {
            python_ = shellQuote(python) + " " + shellQuote(script);
            name_ = first;
            return;
        }
        if (name_.empty() || rc == 3) name_ = first.empty() ? tool + ": no Python to run it" : first;
    }
}

double PythonPeer::time(const std::string& op, const std::string& input, const std::string& output, unsigned threads, int repeats,
                        const std::string& argument, std::string& failure) const {
    if (!available()) {
        failure = name_;
        return std::numeric_limits<double>::quiet_NaN();
    }
    std::string command = python_ + " time " + shellQuote(tool_) + " " + shellQuote(op) + " " + shellQuote(input) + " " + shellQuote(output) + " " +
               std::to_string(threads) + " " + std::to_string(repeats);
    if (!argument.empty()) command += " " + shellQuote(argument);
    std::vector<std::string> lines;
    const int rc = runPeerCommand(scratch_, command, lines);
    char* end = nullptr;
    const double seconds = lines.empty() ? 0 : std::strtod(lines.front().c_str(), &end);
    if (rc != 0 || lines.empty() || end == lines.front().c_str() || !(seconds >= 0)) {
        failure = name_ + ": " + (lines.empty() ? std::string("failed without a word") : lines.back());
        return std::numeric_limits<double>::quiet_NaN();
    }
    return seconds;
}

void writeVolumeNpy(const std::string& path, const io::BinaryVolume& v) {
    io::Volume grey;
    grey.nz = v.nz, grey.ny = v.ny, grey.nx = v.nx;
    grey.data.assign(v.mask.begin(), v.mask.end());
    io::writeNpyU8(path, grey);
}

void setPeerColumn(BenchRecord& rec, const PythonPeer& peer, double seconds, const std::string& failure, unsigned threads,
                   const std::string& differs) {
    if (std::isnan(seconds)) {
        rec.peer = failure;
    } else if (!differs.empty()) {
        rec.peer = peer.name() + ": its answer differs (" + differs + "), not timed";
    } else {
        rec.peer = peer.name() + ", " + threadsText(threads);
        rec.peerSeconds = seconds;
    }
}

}  // namespace portacl::bench
