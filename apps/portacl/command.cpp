#include "command.hpp"

#include <cstdlib>
#include <iostream>

#include "portacl/runtime/log.hpp"
#include "portacl/runtime/output_file.hpp"
#include "portacl/runtime/progress.hpp"

namespace portacl::cli {

std::map<std::string, Command>& commands() {
    static std::map<std::string, Command> registry;
    return registry;
}

void reportToTerminal(const std::string& prefix) {
    setLogger([prefix](LogLevel, const std::string& message) {
        std::cerr << prefix << message << (message.empty() || message.back() != '\n' ? "\n" : "");
    });
    enableProgress(true);
}

std::string defaultDeviceSpec(const std::string& commandDefault) {
    if (const char* env = std::getenv("PORTACL_DEVICE"); env && *env) return env;
    return commandDefault.empty() ? "auto" : commandDefault;
}

void CommonOptions::add(po::options_description& desc, const std::string& defaultDevice, bool withPrecision) {
    device = defaultDeviceSpec(defaultDevice);
    desc.add_options()("help,h", po::bool_switch(&help), "show this help")(
        "device,d", po::value(&device)->default_value(device),
        "device selection: auto, gpu, cpu, all, P:D, or a vendor/name substring (also PORTACL_DEVICE); a batch runs on every device named (all, 0:0,1:0, pocl*2: two contexts, cpu/2: two sub-devices)")(
        "profile", po::bool_switch(&profile), "print per-kernel and per-transfer event times")(
        "trace", po::value(&trace), "write every kernel's and transfer's enqueue, submission, start and end as a Chrome trace (.json; chrome://tracing or ui.perfetto.dev)")(
        "no-cache", po::bool_switch(&noCache), "do not use the on-disk program binary cache");
    if (withPrecision)
        desc.add_options()("precision,p", po::value(&precision)->default_value(precision), "float, double or mixed");
}

ContextOptions CommonOptions::contextOptions() const {
    ContextOptions o = defaultContextOptions();
    if (noCache) o.useDiskCache = false;
    o.profile = profile || !trace.empty();
    return o;
}

bool parseArgs(const std::vector<std::string>& args, const po::options_description& desc,
               const po::positional_options_description& positional, po::variables_map& vm,
               const std::string& usage, bool help) {
    po::store(po::command_line_parser(args).options(desc).positional(positional).run(), vm);
    po::notify(vm);
    if (vm.count("trace")) {
        const std::string trace = vm["trace"].as<std::string>();
        checkOutputExtension(trace, {"json"}, "--trace");
        checkOutputPath(trace, {}, "--trace");
    }
    if (vm.count("help") && vm["help"].as<bool>()) {
        std::cout << usage << "\n\n" << desc << "\n";
        return false;
    }
    (void)help;
    return true;
}

void printProfile(const std::vector<Context*>& contexts, const CommonOptions& common) {
    if (!common.profile && common.trace.empty()) return;
    std::vector<std::pair<std::string, const Profiler*>> profilers;
    for (Context* ctx : contexts) {
        ctx->finish();
        if (common.profile) ctx->profiler().print(std::cerr, ctx->device().label());
        profilers.emplace_back(ctx->device().label(), &ctx->profiler());
    }
    if (!common.trace.empty()) writeFileAtomically(common.trace, [&](std::ostream& os) { writeEventTrace(os, profilers); });
}

}  // namespace portacl::cli
