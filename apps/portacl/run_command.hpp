// The one error ladder of both executables (portacl and kspaceFirstOrder-OpenCL): a command's every
// failure ends as one sentence on stderr and a non-zero exit status.
#pragma once

#include <string>
#include <vector>

#include "command.hpp"

namespace portacl::cli {

// Runs cmd on args. Bad usage prints "<prefix>: <what> (see <helpHint>)" and returns 2; an engine
// error (portacl::Error, which every OpenCL failure of the library is), running out of host memory or
// any other exception prints "<prefix>: <what>" and returns 1.
int runCommand(const Command& cmd, const std::vector<std::string>& args, const std::string& prefix,
               const std::string& helpHint);

}  // namespace portacl::cli
