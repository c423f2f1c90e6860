// portacl: the command-line front end. Thin by design: each subcommand parses its options, calls
// the library, and writes its outputs. Every failure ends in one sentence on stderr and a non-zero
// exit status.
#include <iostream>
#include <memory>

#include "batch.hpp"
#include "command.hpp"
#include "run_command.hpp"
#include "termination.hpp"
#include "portacl/cluster/world.hpp"
#include "portacl/runtime/cpu_runtime_threads.hpp"
#include "portacl/runtime/log.hpp"
#include "portacl/runtime/progress.hpp"
#include "portacl/version.hpp"

namespace {

void usage(std::ostream& os) {
    os << "portacl " << portacl::kVersion << ": a portable OpenCL compute engine\n\n"
       << "usage: portacl <command> [options]   (portacl <command> --help for its options)\n\ncommands:\n";
    for (const auto& [name, cmd] : portacl::cli::commands()) os << "  " << name << std::string(name.size() < 16 ? 16 - name.size() : 1, ' ') << cmd.summary << "\n";
}

}  // namespace

int main(int argc, char** argv) {
    // Under mpirun, the job's ranks (MPI starts before any thread); otherwise a world of one.
    std::unique_ptr<portacl::cluster::World> world;
    try {
        world = std::make_unique<portacl::cluster::World>(&argc, &argv);
    } catch (const std::exception& e) {
        std::cerr << "portacl: " << e.what() << "\n";
        return 1;
    }
    portacl::fitCpuRuntimeThreadsToAffinity();  // before any OpenCL call
    portacl::cli::removeTemporariesOnSignals();
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
    if (world->distributed()) {
        const auto over = portacl::cli::commandsOverRanks().find(name);
        if (over == portacl::cli::commandsOverRanks().end()) {
            if (world->isRoot())
                std::cerr << "portacl " << name << ": this command does not spread over MPI ranks (every rank would write the same outputs); run it without mpirun\n";
            return 2;
        }
        portacl::cli::expectRankGate(over->second);
    }
    // Rank 0 speaks for the job: the other ranks' messages carry their rank, and only rank 0 shows progress.
    portacl::cli::reportToTerminal(world->rank() > 0 ? "portacl[rank " + std::to_string(world->rank()) + "]: " : "portacl: ");
    if (world->rank() > 0) portacl::enableProgress(false);
    if (world->isRoot())
        if (const std::string advice = world->bindingAdvice(); !advice.empty()) portacl::log(portacl::LogLevel::Warning, advice);
    return portacl::cli::runCommand(it->second, args, "portacl " + name, "'portacl " + name + " --help'");
}
