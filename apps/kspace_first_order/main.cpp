// kspaceFirstOrder-OpenCL: `portacl kwave` under k-Wave's binary naming, so that k-Wave's toolboxes
// (MATLAB, k-wave-python) can run it in place of kspaceFirstOrder-CUDA or -OMP with the same options.
#include <iostream>

#include "command.hpp"
#include "run_command.hpp"

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    auto& all = portacl::cli::commands();
    const auto it = all.find("kwave");
    if (it == all.end()) {
        std::cerr << "kspaceFirstOrder-OpenCL: built without the kwave command\n";
        return 1;
    }
    portacl::cli::reportToTerminal("kspaceFirstOrder-OpenCL: ");
    return portacl::cli::runCommand(it->second, args, "kspaceFirstOrder-OpenCL", "kspaceFirstOrder-OpenCL --help");
}
