// The bench's CPU peers that are Python libraries (scikit-image, porespy, WhiteboxTools), run through
// tools/bench/python_peers.py in a process of their own: the bench writes the input into a scratch
// folder, the script times the library's call and writes its answer there, and the bench compares
// that answer with its own before it puts the peer's time beside its row (a peer whose answer differs
// gets no time, and its name says so).
#pragma once

#include <string>

#include "bench/peer_process.hpp"
#include "portacl/bench.hpp"
#include "portacl/io/binary_volume.hpp"

namespace portacl::bench {

class PythonPeer {
public:
    // `tool`: "scikit-image", "porespy" or "whitebox". Finds an interpreter that imports it:
    // $PORTACL_PYTHON, else python3 on the path, else /usr/bin/python3 (Debian's packages).
    explicit PythonPeer(const std::string& tool);
    bool available() const { return !python_.empty(); }
    // A path in the peer's scratch folder, for the files its calls read and write (removed with it).
    std::string file(const std::string& name) const { return scratch_.file(name); }
    // "scikit-image 0.19.3", or why it cannot run ("porespy: not installed").
    const std::string& name() const { return name_; }

    // Times `op` on the file `input`, the answer written to `output`; the median seconds of `repeats`
    // calls on `threads` threads, or NaN with `failure` saying why.
    double time(const std::string& op, const std::string& input, const std::string& output, unsigned threads, int repeats,
                const std::string& argument, std::string& failure) const;

private:
    std::string tool_, python_, name_;  // python_: the interpreter and the script, quoted
    ScratchFolder scratch_{"portacl-python-peer"};
};

// A binary volume as the .npy (uint8, 0 and 1) the Python peers read.
void writeVolumeNpy(const std::string& path, const io::BinaryVolume& v);

// The peer column of a row: the peer's name and threads with its time when it ran and its answer is
// the row's (`differs` empty), else the reason it has no time.
void setPeerColumn(BenchRecord& rec, const PythonPeer& peer, double seconds, const std::string& failure, unsigned threads,
                   const std::string& differs);

}  // namespace portacl::bench
