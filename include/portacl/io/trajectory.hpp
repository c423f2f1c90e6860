// Molecular-dynamics trajectories (DCD, XTC, TRR) as frames of a topology's balls. The files are read
// through chemfiles' C library, loaded when first needed: the `chemfiles` wheel from PyPI carries it
// (scripts/install-deps.sh installs it), so nothing is linked at build time.
#pragma once

#include "portacl/export.hpp"
#include "portacl/io/molecule.hpp"

#include <string>
#include <vector>

namespace portacl::io {

// True for a path that names a trajectory by its extension (.dcd, .xtc, .trr; any case).
PORTACL_API bool isTrajectoryPath(const std::string& path);

// Where chemfiles' library is looked for: $PORTACL_CHEMFILES (the library or its folder), the path
// the build was configured with (PORTACL_CHEMFILES_LIBRARY), then the loader's search path.
// Empty when it loads, else one sentence saying what was tried and how to install it.
PORTACL_API std::string chemfilesProblem();

// Every step of a trajectory as a frame of `topology`: each ball takes the position of its atom record
// (Frame::records) in the step, in Angstrom as chemfiles gives them, and the topology's radius; the
// labels and records are the topology's and are not repeated in each frame. Every step is read
// before it returns. Throws portacl::Error with one sentence when
// chemfiles is missing, the file cannot be opened or has no steps, a step's atom count differs from
// the topology's record count, a step cannot be read (a truncated file), chemfiles warns about the
// file (a DCD whose header and size disagree), or a position is not finite.
PORTACL_API std::vector<Frame> readTrajectory(const std::string& path, const Frame& topology, const std::string& topologyName);

}  // namespace portacl::io
