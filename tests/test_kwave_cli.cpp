// The kwave command line: bad input ends in one sentence, a non-zero exit and no output file; a run
// interrupted by checkpoints writes the output so far at each stop and, continued, the same output as
// an uninterrupted run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "portacl/io/hdf5_file.hpp"
#include "portacl/kwave.hpp"

using namespace portacl;

namespace {

std::string temp(const std::string& name) { return "/tmp/portacl_kwave_cli_" + std::to_string(::getpid()) + "_" + name; }

bool exists(const std::string& path) { return std::ifstream(path).good(); }

struct Result {
    int status;
    std::string err;
};

Result runCli(const std::string& arguments, const std::string& environment = "") {
    const std::string errPath = temp("stderr.txt");
    const std::string cmd = environment + " " + std::string(PORTACL_CLI_PATH) + " kwave --verbose 0 " + arguments + " 2>" + errPath + " >/dev/null";
    const int rc = std::system(cmd.c_str());
    std::stringstream ss;
    ss << std::ifstream(errPath).rdbuf();
    std::remove(errPath.c_str());
    return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, ss.str()};
}

// The last line of stderr (the engine may print a device notice before it).
std::string lastLine(const std::string& text) {
    std::string t = text;
    while (!t.empty() && t.back() == '\n') t.pop_back();
    const auto pos = t.rfind('\n');
    return pos == std::string::npos ? t : t.substr(pos + 1);
}

kwave::Simulation smallSimulation() {
    kwave::Simulation s;
    s.grid.nx = 32;
    s.grid.ny = 24;
    s.grid.dx = s.grid.dy = 1e-4;
    s.nt = 20;
    s.cRef = 1500;
    s.dt = 0.3 * 1e-4 / 1500;
    s.pml.size = {4, 4, 0};
    s.medium.c0 = kwave::Field{{1500.0f}};
    s.medium.rho0 = s.medium.rho0Sgx = s.medium.rho0Sgy = kwave::Field{{1000.0f}};
    s.p0.assign(s.grid.size(), 0.0f);
    for (std::size_t y = 0; y < 24; ++y)
        for (std::size_t x = 0; x < 32; ++x)
            s.p0[x + 32 * y] = static_cast<float>(std::exp(-((x - 16.0) * (x - 16.0) + (y - 12.0) * (y - 12.0)) / 8.0));
    for (std::size_t i = 0; i < s.grid.size(); i += 11) s.sensor.index.push_back(i);
    return s;
}

}  // namespace

TEST(KWaveCli, BadInputGivesOneSentenceAndNoOutput) {
    const std::string in = temp("in.h5"), out = temp("out.h5");
    std::remove(out.c_str());

    auto expectRefused = [&](const std::string& args, const std::string& needle) {
        const Result r = runCli(args);
        EXPECT_NE(r.status, 0) << args;
        EXPECT_NE(lastLine(r.err).find(needle), std::string::npos) << r.err;
        EXPECT_FALSE(exists(out)) << "an output file was left behind by: " << args;
        std::remove(out.c_str());
    };
    expectRefused("-i " + temp("missing.h5") + " -o " + out, "does not exist");
    expectRefused("-o " + out, "no input file");

    kwave::writeInputFile(in, smallSimulation());
    {
        auto f = io::Hdf5File::open(in, io::Hdf5File::Mode::ReadWrite);
        f.remove("c0");
    }
    expectRefused("-i " + in + " -o " + out, "'c0'");

    kwave::writeInputFile(in, smallSimulation());
    expectRefused("-i " + in + " -o " + out + " -s 50", "past the last time step");
    expectRefused("-i " + in + " -o " + out + " --precision quad", "unknown precision");
    // The local Fourier basis decomposition's options: without mpirun, without an overlap, an
    // overlap alone, another decomposition.
    expectRefused("-i " + in + " -o " + out + " --decomposition lfb --overlap 4", "run it under mpirun with 2 ranks or more");
    expectRefused("-i " + in + " -o " + out + " --overlap 4", "give it with --decomposition lfb");
    expectRefused("-i " + in + " -o " + out + " --decomposition pencils", "takes slabs or lfb");

    // An output file is not an input file.
    ASSERT_EQ(runCli("-i " + in + " -o " + out).status, 0);
    const std::string out2 = temp("out2.h5");
    const Result r = runCli("-i " + out + " -o " + out2);
    EXPECT_NE(r.status, 0);
    EXPECT_NE(lastLine(r.err).find("not an input file"), std::string::npos) << r.err;
    EXPECT_FALSE(exists(out2));
    std::remove(out.c_str());
    std::remove(in.c_str());
}

TEST(KWaveCli, CheckpointedRunEqualsUninterruptedRun) {
    const std::string in = temp("ck_in.h5"), whole = temp("whole.h5"), pieces = temp("pieces.h5"), ck = temp("ck.h5");
    kwave::writeInputFile(in, smallSimulation());
    ASSERT_EQ(runCli("-i " + in + " -o " + whole + " -p --p_max --p_final --u_rms").status, 0);
    const std::string args = "-i " + in + " -o " + pieces + " -p --p_max --p_final --u_rms --checkpoint_file " + ck +
                             " --checkpoint_timesteps 7";
    for (int run = 0; run < 2; ++run) {
        ASSERT_EQ(runCli(args).status, 0);
        EXPECT_TRUE(exists(ck)) << "run " << run << " should have stopped at a checkpoint";
        // As k-Wave's solvers do, the stop writes the output with what was recorded so far.
        ASSERT_TRUE(exists(pieces)) << "run " << run << " stopped at a checkpoint without an output file";
        const auto so = io::Hdf5File::open(pieces);
        EXPECT_EQ(so.readScalarUInt64("t_index"), 7u * (run + 1));
        const auto p = so.readFloat("p"), pWhole = io::Hdf5File::open(whole).readFloat("p");
        ASSERT_LT(p.size(), pWhole.size());
        EXPECT_TRUE(std::equal(p.begin(), p.end(), pWhole.begin())) << "the samples so far differ from the uninterrupted run's";
    }
    ASSERT_EQ(runCli(args).status, 0);
    EXPECT_FALSE(exists(ck)) << "the checkpoint is removed when the run completes";
    const auto a = io::Hdf5File::open(whole), b = io::Hdf5File::open(pieces);
    for (const char* name : {"p", "p_max", "p_final", "ux_rms", "uy_rms"}) EXPECT_EQ(a.readFloat(name), b.readFloat(name)) << name;

    // A checkpoint of another input is refused.
    kwave::Simulation other = smallSimulation();
    other.p0[5] = 0.5f;
    const std::string otherIn = temp("other_in.h5");
    kwave::writeInputFile(otherIn, other);
    ASSERT_EQ(runCli("-i " + in + " -o " + pieces + " --checkpoint_file " + ck + " --checkpoint_timesteps 5").status, 0);
    const Result r = runCli("-i " + otherIn + " -o " + temp("never.h5") + " --checkpoint_file " + ck);
    EXPECT_NE(r.status, 0);
    EXPECT_NE(lastLine(r.err).find("belongs to another input"), std::string::npos) << r.err;
    EXPECT_FALSE(exists(temp("never.h5")));
    for (const auto& p : {in, whole, pieces, ck, otherIn}) std::remove(p.c_str());
}

// A cold kernel cache makes the pre-processing take up to a minute on a CPU device: on a terminal the
// progress line says that kernels are being built while it runs (before the device memory line that
// ends the pre-processing); not on a terminal, or with PORTACL_NO_PROGRESS, it stays quiet.
TEST(KWaveCli, ColdKernelCacheSaysItIsBuildingKernelsOnATerminalOnly) {
    if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no `script` (util-linux) to give the command a terminal";
    const std::string in = temp("cold_in.h5"), out = temp("cold_out.h5"), cache = temp("cold_cache"), typescript = temp("typescript.txt");
    kwave::writeInputFile(in, smallSimulation());
    const std::string command = std::string(PORTACL_CLI_PATH) + " kwave -i " + in + " -o " + out;
    const std::string building = "building kernels of kwave.cl";
    // Runs the command with an empty kernel cache (or the one the last run left, when warm) under
    // `script`, which gives it a terminal; returns what the terminal showed.
    auto onTerminal = [&](const std::string& env, bool warm) {
        if (!warm) std::system(("rm -rf " + cache).c_str());
        const std::string cmd = "env -u PORTACL_NO_PROGRESS PORTACL_CACHE_DIR=" + cache + " " + env + " script -qec '" + command +
                                "' " + typescript + " >/dev/null 2>&1";
        EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
        std::stringstream ss;
        ss << std::ifstream(typescript).rdbuf();
        std::remove(typescript.c_str());
        std::remove(out.c_str());
        return ss.str();
    };

    const std::string cold = onTerminal("", false);
    const auto said = cold.find(building), pre = cold.find("Pre-processing:"), memory = cold.find("Device memory:");
    ASSERT_NE(said, std::string::npos) << cold;
    ASSERT_NE(pre, std::string::npos) << cold;
    ASSERT_NE(memory, std::string::npos) << cold;
    EXPECT_LT(pre, said) << "said before the pre-processing started:\n" << cold;
    EXPECT_LT(said, memory) << "said only after the pre-processing:\n" << cold;

    // Warm: nothing to build, nothing said.
    const std::string warm = onTerminal("", true);
    EXPECT_EQ(warm.find(building), std::string::npos) << warm;
    // Cold, but progress turned off.
    const std::string off = onTerminal("PORTACL_NO_PROGRESS=1", false);
    EXPECT_NE(off.find("Pre-processing:"), std::string::npos) << off;
    EXPECT_EQ(off.find(building), std::string::npos) << off;

    // Cold, not a terminal: stderr holds no progress line.
    std::system(("rm -rf " + cache).c_str());
    const std::string errPath = temp("cold_stderr.txt");
    ASSERT_EQ(std::system(("env -u PORTACL_NO_PROGRESS PORTACL_CACHE_DIR=" + cache + " " + command + " >/dev/null 2>" + errPath).c_str()), 0);
    std::stringstream err;
    err << std::ifstream(errPath).rdbuf();
    EXPECT_EQ(err.str().find("building kernels"), std::string::npos) << err.str();
    EXPECT_EQ(err.str().find('\r'), std::string::npos) << err.str();
    for (const auto& p : {in, errPath}) std::remove(p.c_str());
    std::system(("rm -rf " + cache).c_str());
}

#if PORTACL_WITH_MPI
// A grid one device cannot hold (PoCL's device limited to 1 GiB by POCL_MEMORY_LIMIT) is refused
// before anything is allocated, in one sentence that names the memory it needs and how many MPI
// ranks with such devices would hold it.
TEST(KWaveCli, GridTooLargeForOneDeviceNamesTheRanksThatWouldHoldIt) {
    if (::system("clinfo -l 2>/dev/null | grep -qi 'portable computing language'") != 0) GTEST_SKIP() << "no PoCL device";
    kwave::Simulation s;
    s.grid.nx = s.grid.ny = s.grid.nz = 320;
    s.grid.dx = s.grid.dy = s.grid.dz = 1e-4;
    s.nt = 2;
    s.cRef = 1500;
    s.dt = 0.3 * 1e-4 / 1500;
    s.medium.c0 = kwave::Field{{1500.0f}};
    s.medium.rho0 = s.medium.rho0Sgx = s.medium.rho0Sgy = s.medium.rho0Sgz = kwave::Field{{1000.0f}};
    s.sensor.index = {0};
    const std::string in = temp("large_in.h5"), out = temp("large_out.h5");
    kwave::writeInputFile(in, s);
    const Result r = runCli("--device pocl -i " + in + " -o " + out, "POCL_MEMORY_LIMIT=1");
    EXPECT_EQ(r.status, 1);
    const std::string line = lastLine(r.err);
    EXPECT_NE(line.find("this 320x320x320 simulation needs"), std::string::npos) << line;
    EXPECT_NE(line.find("(mpirun -n 2 portacl kwave"), std::string::npos) << line;
    EXPECT_FALSE(exists(out));
    std::remove(in.c_str());
}
#endif

// -t N sets PoCL's thread count (its worker threads, and FFTW's, one per compute unit): the run names
// the device's compute units, N for each N asked, whatever the machine's core count.
TEST(KWaveCli, ThreadsOptionSetsPoclComputeUnits) {
    if (::system("clinfo -l 2>/dev/null | grep -qi 'portable computing language'") != 0) GTEST_SKIP() << "no PoCL device";
    const std::string in = temp("threads_in.h5"), out = temp("threads_out.h5"), log = temp("threads_log.txt");
    kwave::writeInputFile(in, smallSimulation());
    for (const int threads : {1, 3}) {
        const std::string cmd = std::string(PORTACL_CLI_PATH) + " kwave --device pocl --benchmark 2 -t " + std::to_string(threads) +
                                " -i " + in + " -o " + out + " >" + log + " 2>&1";
        ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
        std::stringstream text;
        text << std::ifstream(log).rdbuf();
        EXPECT_NE(text.str().find("Threads:           " + std::to_string(threads) + " "), std::string::npos) << text.str();
    }
    for (const std::string& path : {in, out, log}) std::remove(path.c_str());
}
