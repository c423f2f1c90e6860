// What the suites that run the portacl command line share: scratch paths, running a shell command
// with its standard error kept, reading a file whole, a shorter multi-model structure and the
// comparison of two output folders file for file.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace portacl::test {

// A fresh path under the test's temporary folder, unique to this process ("<prefix><pid>_<name>").
inline std::string scratchPath(const std::string& prefix, const std::string& name) {
    const std::string p = testing::TempDir() + prefix + std::to_string(::getpid()) + "_" + name;
    std::filesystem::remove_all(p);
    return p;
}

inline std::string readWhole(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct ShellResult {
    int status;       // the exit status, -1 when the command did not exit (a signal)
    std::string err;  // its standard error
};

// Runs `cmd` through the shell, its standard output discarded.
inline ShellResult runShell(const std::string& cmd) {
    const std::string errFile = scratchPath("portacl_shell_", "stderr.txt");
    const int raw = std::system((cmd + " >/dev/null 2>" + errFile).c_str());
    std::string err = readWhole(errFile);
    std::remove(errFile.c_str());
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, err};
}

// The first `models` models of a multi-model PDB file, written to `path` (a shorter batch for the tests).
inline void writeFirstModels(const std::string& from, int models, const std::string& path) {
    std::ifstream in(from);
    std::ofstream out(path);
    std::string line;
    int seen = 0;
    while (std::getline(in, line)) {
        if (line.rfind("MODEL", 0) == 0 && ++seen > models) break;
        out << line << "\n";
    }
    out << "END\n";
}

// Every file of folder a is in folder b with the same bytes, and b holds no other.
inline void expectSameFolders(const std::string& a, const std::string& b) {
    namespace fs = std::filesystem;
    std::size_t files = 0;
    for (const auto& e : fs::directory_iterator(a)) {
        const std::string name = e.path().filename().string();
        EXPECT_TRUE(fs::exists(b + "/" + name)) << name;
        EXPECT_TRUE(readWhole(e.path().string()) == readWhole(b + "/" + name)) << name;
        ++files;
    }
    EXPECT_GT(files, 0u);
    EXPECT_EQ(files, static_cast<std::size_t>(std::distance(fs::directory_iterator(b), fs::directory_iterator())));
}

}  // namespace portacl::test
