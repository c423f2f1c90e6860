// Trajectory steps as frames of a topology's balls, read through chemfiles' C library.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>

#include "io/chemfiles_library.hpp"
#include "portacl/io/trajectory.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::io {

bool isTrajectoryPath(const std::string& path) {
    const auto dot = path.find_last_of('.');
    const auto slash = path.find_last_of('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return false;
    std::string ext = path.substr(dot + 1);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext == "dcd" || ext == "xtc" || ext == "trr";
}

std::string chemfilesProblem() {
    std::string problem;
    return chemfiles::library(&problem) ? std::string() : problem;
}

namespace {

// chemfiles' last error, or its warnings, as the end of a sentence.
std::string chemfilesSays(const chemfiles::Library& lib) {
    const char* e = lib.lastError();
    return e && *e ? std::string(" (chemfiles: ") + e + ")" : std::string();
}

// A warning while reading is a damaged file (a DCD whose header counts more steps than it holds):
// refused rather than read in part.
void refuseOnWarning(const std::string& path) {
    const std::vector<std::string> w = chemfiles::takeWarnings();
    if (!w.empty())
        throw Error("'" + path + "' looks truncated or damaged (chemfiles: " + w.front() + ")");
}

struct Closer {
    const chemfiles::Library& lib;
    void* trajectory = nullptr;
    void* frame = nullptr;
    ~Closer() {
        if (frame) lib.free(frame);
        if (trajectory) lib.trajectoryClose(trajectory);
    }
};

}  // namespace

std::vector<Frame> readTrajectory(const std::string& path, const Frame& topology, const std::string& topologyName) {
    if (topology.records.size() != topology.balls.size())
        throw Error("the topology '" + topologyName + "' does not say which atom record each ball came from");
    std::string problem;
    const chemfiles::Library* lib = chemfiles::library(&problem);
    if (!lib) throw Error(problem);
    {
        std::ifstream probe(path, std::ios::binary | std::ios::ate);
        if (!probe) throw Error("cannot open '" + path + "': " + std::strerror(errno));
        if (probe.tellg() == 0) throw Error("'" + path + "' is empty");
    }
    chemfiles::takeWarnings();
    Closer handles{*lib};
    handles.trajectory = lib->trajectoryOpen(path.c_str(), 'r');
    if (!handles.trajectory) throw Error("cannot read '" + path + "' as a trajectory" + chemfilesSays(*lib));
    std::uint64_t steps = 0;
    if (lib->trajectoryNsteps(handles.trajectory, &steps) != 0)
        throw Error("cannot count the frames of '" + path + "'" + chemfilesSays(*lib));
    refuseOnWarning(path);
    if (steps == 0) throw Error("'" + path + "' has no frames");
    handles.frame = lib->frameNew();
    if (!handles.frame) throw Error("chemfiles cannot make a frame to read '" + path + "' into" + chemfilesSays(*lib));

    std::vector<Frame> frames;
    frames.reserve(static_cast<std::size_t>(steps));
    for (std::uint64_t s = 0; s < steps; ++s) {
        const std::string which = "frame " + std::to_string(s + 1) + " of " + std::to_string(steps) + " of '" + path + "'";
        if (lib->trajectoryReadStep(handles.trajectory, s, handles.frame) != 0)
            throw Error("cannot read " + which + ", so the file is truncated or damaged" + chemfilesSays(*lib));
        refuseOnWarning(path);
        std::uint64_t atoms = 0;
        chemfiles::Vector3* positions = nullptr;
        std::uint64_t size = 0;
        if (lib->frameAtomsCount(handles.frame, &atoms) != 0 || lib->framePositions(handles.frame, &positions, &size) != 0 ||
            size != atoms)
            throw Error("cannot take the positions of " + which + chemfilesSays(*lib));
        if (atoms != topology.recordCount)
            throw Error(which + " has " + std::to_string(atoms) + " atoms, but the topology '" + topologyName + "' has " +
                        std::to_string(topology.recordCount) + " atom records in its first model; give the topology the trajectory was written with");
        Frame f;
        f.recordCount = topology.recordCount;
        f.balls = topology.balls;
        for (std::size_t i = 0; i < f.balls.size(); ++i) {
            const chemfiles::Vector3& p = positions[topology.records[i]];  // Angstrom
            if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2]))
                throw Error("atom " + std::to_string(topology.records[i] + 1) + " of " + which + " has a non-finite coordinate");
            f.balls[i].x = p[0], f.balls[i].y = p[1], f.balls[i].z = p[2];
        }
        frames.push_back(std::move(f));
    }
    return frames;
}

}  // namespace portacl::io
