// ScratchFolder and runPeerCommand (peer_process.hpp).
#include "bench/peer_process.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "portacl/bench.hpp"

namespace portacl::bench {

namespace fs = std::filesystem;

ScratchFolder::ScratchFolder(const std::string& prefix) {
    std::error_code ec;
    std::string t = (fs::temp_directory_path(ec) / (prefix + "-XXXXXX")).string();
    if (!ec && ::mkdtemp(t.data())) dir_ = t;
}

ScratchFolder::~ScratchFolder() {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
}

std::string ScratchFolder::file(const std::string& name) const { return (fs::path(dir_) / name).string(); }

int runPeerCommand(const ScratchFolder& scratch, const std::string& commandLine, std::vector<std::string>& lines) {
    const std::string out = scratch.file("peer-output.txt");
    const int rc = std::system((commandLine + " > " + shellQuote(out) + " 2>&1").c_str());
    lines.clear();
    std::ifstream f(out);
    for (std::string line; std::getline(f, line);) lines.push_back(line);
    return rc == -1 || !WIFEXITED(rc) ? -1 : WEXITSTATUS(rc);
}

}  // namespace portacl::bench
