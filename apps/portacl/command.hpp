// The subcommand registry of the `portacl` front end. Each subcommand lives in its own cmd_*.cpp and
// registers itself with PORTACL_COMMAND; main() dispatches on the first argument.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "portacl/runtime/context.hpp"

namespace portacl::cli {

namespace po = boost::program_options;

using CommandFn = int (*)(const std::vector<std::string>& args);

struct Command {
    std::string summary;
    CommandFn run;
};

std::map<std::string, Command>& commands();

struct Registrar {
    Registrar(const std::string& name, const std::string& summary, CommandFn fn) { commands()[name] = {summary, fn}; }
};

#define PORTACL_COMMAND(name, summary, fn) \
    static const ::portacl::cli::Registrar portacl_command_registrar_##fn(name, summary, fn)

// The device a command uses when --device is not given: PORTACL_DEVICE when set, else the command's
// own default (bench: all), else auto.
std::string defaultDeviceSpec(const std::string& commandDefault = "");

// What the command line shows of the library's messages and progress: the library's logger prints
// each message on stderr after `prefix` ("portacl: "), and progress lines are on (on a terminal).
void reportToTerminal(const std::string& prefix);

// The options every command takes: --device, --precision, --profile, --trace, --no-cache, --help.
struct CommonOptions {
    std::string device;
    std::string precision = "float";  // a command that defaults to another sets it before add()
    bool profile = false;
    std::string trace;  // --trace: the commands' timeline as a Chrome trace (JSON)
    bool noCache = false;
    bool help = false;

    void add(po::options_description& desc, const std::string& defaultDevice = "", bool withPrecision = true);
    ContextOptions contextOptions() const;
    Precision parsedPrecision() const { return parsePrecision(precision); }
};

// Parses args against desc (and positional), printing usage for --help. Returns false when the
// command should stop (help printed).
bool parseArgs(const std::vector<std::string>& args, const po::options_description& desc,
               const po::positional_options_description& positional, po::variables_map& vm,
               const std::string& usage, bool help);

// Prints the --profile table of the contexts when profiling was requested, and writes their --trace.
void printProfile(const std::vector<Context*>& contexts, const CommonOptions& common);
inline void printProfile(Context& ctx, const CommonOptions& common) { printProfile(std::vector<Context*>{&ctx}, common); }

}  // namespace portacl::cli
