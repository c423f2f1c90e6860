// What the bench's CPU peers that run as programs of their own share (OpenCV's portacl-opencv-peer,
// the Python libraries of tools/bench/python_peers.py): a scratch folder for the files they read and
// write, and one command run through the shell with its output caught.
#pragma once

#include <string>
#include <vector>

namespace portacl::bench {

// A new folder under the system's temporary folder, removed with everything in it when this goes.
class ScratchFolder {
public:
    explicit ScratchFolder(const std::string& prefix);
    ~ScratchFolder();
    ScratchFolder(const ScratchFolder&) = delete;
    ScratchFolder& operator=(const ScratchFolder&) = delete;
    bool ok() const { return !dir_.empty(); }
    std::string file(const std::string& name) const;  // a path inside the folder

private:
    std::string dir_;
};

// Runs `commandLine` (its words already shell-quoted) with its standard output and error going to a
// file in `scratch`; returns the exit status (-1 when it did not run or was killed) and the output's
// lines in `lines`.
int runPeerCommand(const ScratchFolder& scratch, const std::string& commandLine, std::vector<std::string>& lines);

}  // namespace portacl::bench
