// portacl: the command-line front end. Thin by design: each subcommand parses its options, calls
// the library, and writes its outputs. Every failure ends in one sentence on stderr and a non-zero
// exit status.
#include <iostream>

#include "command.hpp"
#include "run_command.hpp"
#include "portacl/version.hpp"

namespace {

void usage(std::ostream& os) {
    os << "portacl " << portacl::kVersion << ": a portable OpenCL compute engine\n\n"
       << "usage: portacl <command> [options]   (portacl <command> --help for its options)\n\ncommands:\n";
    for (const auto& [name, cmd] : portacl::cli::commands()) os << "  " << name << std::string(name.size() < 16 ? 16 - name.size() : 1, ' ') << cmd.summary << "\n";
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        usage(std::cerr);
        return 2;
    }
    const std::string name = argv[1];
    // `portacl help CMD` is `portacl CMD --help`.
    if (name == "help" && argc >= 3 && portacl::cli::commands().count(argv[2]))
        return portacl::cli::commands().at(argv[2]).run({"--help"});
    if (name == "--help" || name == "-h" || name == "help") {
        usage(std::cout);
        return 0;
    }
    if (name == "--version") {
        std::cout << "portacl " << portacl::kVersion << "\n";
        return 0;
    }
    auto& all = portacl::cli::commands();
    auto it = all.find(name);
    if (it == all.end()) {
        std::cerr << "portacl: unknown command '" << name << "'; run 'portacl --help' for the list\n";
        return 2;
    }
    const std::vector<std::string> args(argv + 2, argv + argc);
    portacl::cli::reportToTerminal("portacl: ");
    return portacl::cli::runCommand(it->second, args, "portacl " + name, "'portacl " + name + " --help'");
}
