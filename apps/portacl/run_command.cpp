#include "run_command.hpp"

#include <iostream>
#include <new>

#include "portacl/runtime/error.hpp"

namespace portacl::cli {

int runCommand(const Command& cmd, const std::vector<std::string>& args, const std::string& prefix,
               const std::string& helpHint) {
    try {
        return cmd.run(args);
    } catch (const po::error& e) {
        std::cerr << prefix << ": " << e.what() << " (see " << helpHint << ")\n";
        return 2;
    } catch (const Error& e) {
        std::cerr << prefix << ": " << e.what() << "\n";
        return 1;
    } catch (const std::bad_alloc&) {
        std::cerr << prefix << ": out of host memory\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << prefix << ": " << e.what() << "\n";
        return 1;
    }
}

}  // namespace portacl::cli
