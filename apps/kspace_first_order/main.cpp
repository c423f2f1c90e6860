// kspaceFirstOrder-OpenCL: `portacl kwave` under k-Wave's binary naming, so that k-Wave's toolboxes
// (MATLAB, k-wave-python) can run it in place of kspaceFirstOrder-CUDA or -OMP with the same options.
#include <iostream>

#include "command.hpp"
#include "portacl/runtime/error.hpp"

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    auto& all = portacl::cli::commands();
    const auto it = all.find("kwave");
    if (it == all.end()) {
        std::cerr << "kspaceFirstOrder-OpenCL: built without the kwave command\n";
        return 1;
    }
    portacl::cli::reportToTerminal("kspaceFirstOrder-OpenCL: ");
    try {
        return it->second.run(args);
    } catch (const boost::program_options::error& e) {
        std::cerr << "kspaceFirstOrder-OpenCL: " << e.what() << " (see kspaceFirstOrder-OpenCL --help)\n";
        return 2;
    } catch (const portacl::Error& e) {
        std::cerr << "kspaceFirstOrder-OpenCL: " << e.what() << "\n";
        return 1;
    } catch (const cl::Error& e) {
        std::cerr << "kspaceFirstOrder-OpenCL: OpenCL call " << e.what() << " failed with "
                  << portacl::clStatusName(e.err()) << "\n";
        return 1;
    } catch (const std::bad_alloc&) {
        std::cerr << "kspaceFirstOrder-OpenCL: out of host memory\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "kspaceFirstOrder-OpenCL: " << e.what() << "\n";
        return 1;
    }
}
