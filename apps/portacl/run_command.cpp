#include "run_command.hpp"

#include <iostream>
#include <new>

#include "batch.hpp"
#include "portacl/cluster/world.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::cli {

namespace {

// Under mpirun: a failure before the ranks' gate is the whole job's, said once by rank 0; after it,
// each rank says its own (rank 0 the batch's).
int report(const std::string& prefix, std::string message, int status) {
    if (cluster::World* world = ranks(); world && !rankGatePassed()) {
        message = rankGateFailed(message);
        if (!world->isRoot()) return status;
    }
    std::cerr << prefix << ": " << message << "\n";
    return status;
}

}  // namespace

int runCommand(const Command& cmd, const std::vector<std::string>& args, const std::string& prefix,
               const std::string& helpHint) {
    try {
        return cmd.run(args);
    } catch (const po::error& e) {
        return report(prefix, std::string(e.what()) + " (see " + helpHint + ")", 2);
    } catch (const cluster::ReportedByRoot&) {
        return 1;  // rank 0 says it
    } catch (const Error& e) {
        return report(prefix, e.what(), 1);
    } catch (const std::bad_alloc&) {
        return report(prefix, "out of host memory", 1);
    } catch (const std::exception& e) {
        return report(prefix, e.what(), 1);
    }
}

}  // namespace portacl::cli
