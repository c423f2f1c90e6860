// The atomic output module: special files written in place and never replaced, links kept, outputs
// that are inputs refused (device and inode), missing folders and wrong extensions refused, stale
// temporaries of dead processes removed, a group killed between its renames rolled forward, and a
// full disk (RLIMIT_FSIZE) reported with no file left behind.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"

using namespace portacl;
namespace fs = std::filesystem;

namespace {

class OutputFileTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = testing::TempDir() + "portacl_output_" + std::to_string(::getpid()) + "_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name();
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string at(const std::string& name) const { return dir_ + "/" + name; }
    std::vector<std::string> names() const {
        std::vector<std::string> n;
        for (const auto& e : fs::directory_iterator(dir_)) n.push_back(e.path().filename().string());
        std::sort(n.begin(), n.end());
        return n;
    }
    std::string dir_;
};

std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void put(const std::string& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

void writeText(const std::string& p, const std::string& text) {
    writeFileAtomically(p, [&](std::ostream& os) { os << text; });
}

// A pid that belonged to a process that has exited.
long deadPid() {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    int status = 0;
    ::waitpid(child, &status, 0);
    return child;
}

std::string errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_F(OutputFileTest, WritesCompleteFilesAndLeavesNoTemporary) {
    writeText(at("a.txt"), "one\n");
    writeText(at("a.txt"), "two\n");
    EXPECT_EQ(slurp(at("a.txt")), "two\n");
    EXPECT_EQ(names(), std::vector<std::string>{"a.txt"});
}

TEST_F(OutputFileTest, AWriterThatThrowsLeavesTheOldFile) {
    put(at("a.txt"), "old\n");
    EXPECT_THROW(writeFileAtomically(at("a.txt"), [](std::ostream& os) {
        os << "half";
        throw Error("the writer failed");
    }),
                 Error);
    EXPECT_EQ(slurp(at("a.txt")), "old\n");
    EXPECT_EQ(names(), std::vector<std::string>{"a.txt"});
}

TEST_F(OutputFileTest, DevNullStaysADeviceAndFifosAreWrittenInPlace) {
    writeText("/dev/null", "discarded\n");
    struct stat st {};
    ASSERT_EQ(::stat("/dev/null", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null was replaced";
    EXPECT_TRUE(isSpecialOutput("/dev/stdout"));

    const std::string fifo = at("pipe");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::string got;
    std::thread reader([&] { got = slurp(fifo); });
    writeText(fifo, "through the pipe\n");
    reader.join();
    EXPECT_EQ(got, "through the pipe\n");
    ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the fifo was replaced by a regular file";
    EXPECT_EQ(names(), std::vector<std::string>{"pipe"});
}

TEST_F(OutputFileTest, ASymbolicLinkKeepsPointingAtTheNewContent) {
    fs::create_directories(at("real"));
    put(at("real/target.txt"), "old\n");
    fs::create_symlink(at("real/target.txt"), at("link.txt"));
    writeText(at("link.txt"), "new\n");
    EXPECT_TRUE(fs::is_symlink(at("link.txt")));
    EXPECT_EQ(slurp(at("real/target.txt")), "new\n");
}

TEST_F(OutputFileTest, AnOutputThatIsAnInputIsRefusedByInodeNotByName) {
    put(at("in.h5"), "input\n");
    fs::create_hard_link(at("in.h5"), at("hard.h5"));
    fs::create_symlink(at("in.h5"), at("soft.h5"));
    const std::string viaDots = dir_ + "/./in.h5";
    for (const std::string& out : {at("in.h5"), at("hard.h5"), at("soft.h5"), viaDots}) {
        const std::string e = errorOf([&] { checkOutputPath(out, {at("in.h5")}, "-o"); });
        EXPECT_NE(e.find("is the input"), std::string::npos) << out << ": " << e;
    }
    EXPECT_NO_THROW(checkOutputPath(at("other.h5"), {at("in.h5")}, "-o"));
    EXPECT_EQ(slurp(at("in.h5")), "input\n");
}

TEST_F(OutputFileTest, MissingFoldersFoldersAndExtensionsAreRefusedInOneSentence) {
    std::string e = errorOf([&] { checkOutputPath(at("nope/out.txt"), {}, "-o"); });
    EXPECT_NE(e.find("does not exist"), std::string::npos) << e;
    e = errorOf([&] { checkOutputPath(dir_, {}, "-o"); });
    EXPECT_NE(e.find("is a folder"), std::string::npos) << e;
    e = errorOf([&] { checkOutputExtension(at("x.jpg"), {"npy", "png", "tif"}, "-o"); });
    EXPECT_NE(e.find(".npy, .png or .tif"), std::string::npos) << e;
    EXPECT_NO_THROW(checkOutputExtension(at("x.PNG"), {"npy", "png"}, "-o"));
    EXPECT_NO_THROW(checkOutputExtension("/dev/null", {"png"}, "-o"));
    e = errorOf([&] { checkDistinctOutputs({{"-o", at("a.txt")}, {"--edges", dir_ + "/./a.txt"}}); });
    EXPECT_NE(e.find("both name"), std::string::npos) << e;
    for (const std::string& msg : {e})
        EXPECT_EQ(msg.find('\n'), std::string::npos);
}

TEST_F(OutputFileTest, ReadOnlyFolderIsRefusedBeforeWriting) {
    if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only folders; tools/faults/full_disk_trials.py mounts one";
    fs::create_directories(at("ro"));
    fs::permissions(at("ro"), fs::perms::owner_read | fs::perms::owner_exec);
    const std::string e = errorOf([&] { checkOutputPath(at("ro/out.txt"), {}, "-o"); });
    fs::permissions(at("ro"), fs::perms::owner_all);
    EXPECT_NE(e.find("not writable"), std::string::npos) << e;
}

TEST_F(OutputFileTest, StaleTemporariesOfDeadProcessesAreRemovedAndLiveOnesKept) {
    const long dead = deadPid();
    put(at("out.h5"), "old\n");
    put(at("out.h5.tmp." + std::to_string(dead)), "torn");
    put(at("out.h5.tmp." + std::to_string(dead) + ".3"), "torn");
    put(at("out.h5.tmp.1"), "init's");  // pid 1 is alive
    put(at("other.h5.tmp." + std::to_string(dead)), "someone else's output");
    checkOutputPath(at("out.h5"));
    EXPECT_EQ(names(), (std::vector<std::string>{"other.h5.tmp." + std::to_string(dead), "out.h5", "out.h5.tmp.1"}));
    EXPECT_EQ(slurp(at("out.h5")), "old\n");
}

TEST_F(OutputFileTest, AGroupCommitsTogether) {
    put(at("v.txt"), "old v\n");
    put(at("e.txt"), "old e\n");
    OutputGroup g;
    const AtomicOutput& v = g.add(at("v.txt"));
    const AtomicOutput& e = g.add(at("e.txt"));
    writeFileContents(v, [](std::ostream& os) { os << "new v\n"; });
    writeFileContents(e, [](std::ostream& os) { os << "new e\n"; });
    EXPECT_EQ(slurp(at("v.txt")), "old v\n");  // nothing visible before the commit
    g.commit();
    EXPECT_EQ(slurp(at("v.txt")), "new v\n");
    EXPECT_EQ(slurp(at("e.txt")), "new e\n");
    EXPECT_EQ(names(), (std::vector<std::string>{"e.txt", "v.txt"}));
}

TEST_F(OutputFileTest, AGroupKilledBetweenItsRenamesIsRolledForwardByTheNextWriter) {
    // The state a kill leaves after the journals were written and the first rename was done.
    const std::string pid = std::to_string(deadPid());
    put(at("v.txt"), "new v\n");
    put(at("e.txt"), "old e\n");
    put(at("e.txt.tmp." + pid), "new e\n");
    const std::string journal = "T " + at("v.txt.tmp." + pid) + "\t" + at("v.txt") + "\nT " + at("e.txt.tmp." + pid) + "\t" +
                                at("e.txt") + "\nJ " + at("v.txt.commit." + pid) + "\nJ " + at("e.txt.commit." + pid) + "\nend\n";
    put(at("v.txt.commit." + pid), journal);
    put(at("e.txt.commit." + pid), journal);
    checkOutputPath(at("e.txt"));
    EXPECT_EQ(slurp(at("v.txt")), "new v\n");
    EXPECT_EQ(slurp(at("e.txt")), "new e\n");
    EXPECT_EQ(names(), (std::vector<std::string>{"e.txt", "v.txt"}));
}

TEST_F(OutputFileTest, AGroupOfManyFilesCommitsThroughOneRecordPerFolder) {
    fs::create_directories(at("sub"));
    OutputGroup g;
    std::vector<std::string> paths;
    for (int i = 0; i < 300; ++i) paths.push_back(at((i % 3 == 0 ? "sub/f" : "f") + std::to_string(i) + ".txt"));
    {
        OutputFolderScan scan(paths);
        for (const auto& p : paths) writeFileContents(g.add(p), [&](std::ostream& os) { os << p << "\n"; });
    }
    g.commit();
    for (const auto& p : paths) EXPECT_EQ(slurp(p), p + "\n");
    EXPECT_EQ(names().size(), 201u);  // the 200 files and sub/, no record left
    for (const auto& n : names()) EXPECT_EQ(n.find("commit"), std::string::npos) << n;
    EXPECT_EQ(std::distance(fs::directory_iterator(at("sub")), fs::directory_iterator()), 100);
}

TEST_F(OutputFileTest, AGroupKilledBetweenItsRenamesIsRolledForwardFromItsFolderRecord) {
    // A kill after the records were written and the first rename done: the next writer of any file
    // in one of the folders completes the group, in both folders.
    const std::string pid = std::to_string(deadPid());
    fs::create_directories(at("sub"));
    put(at("v.txt"), "new v\n");
    put(at("sub/e.txt"), "old e\n");
    put(at("sub/e.txt.tmp." + pid), "new e\n");
    const std::string record = "T " + at("v.txt.tmp." + pid) + "\t" + at("v.txt") + "\nT " + at("sub/e.txt.tmp." + pid) + "\t" +
                               at("sub/e.txt") + "\nJ " + at(".portacl-commit." + pid + ".0") + "\nJ " +
                               at("sub/.portacl-commit." + pid + ".0") + "\nend\n";
    put(at(".portacl-commit." + pid + ".0"), record);
    put(at("sub/.portacl-commit." + pid + ".0"), record);
    put(at(".portacl-commit." + pid + ".1.part"), "T half a record");
    checkOutputPath(at("unrelated.txt"));
    EXPECT_EQ(slurp(at("v.txt")), "new v\n");
    EXPECT_EQ(slurp(at("sub/e.txt")), "new e\n");
    EXPECT_EQ(names(), (std::vector<std::string>{"sub", "v.txt"}));
    EXPECT_FALSE(fs::exists(at("sub/.portacl-commit." + pid + ".0")));
}

TEST_F(OutputFileTest, AGroupKilledBeforeItsJournalKeepsTheOldFiles) {
    // Killed while the journal was being written: the group never committed.
    const std::string pid = std::to_string(deadPid());
    put(at("v.txt"), "old v\n");
    put(at("v.txt.tmp." + pid), "new v\n");
    put(at("v.txt.tmp." + pid + ".commit"), "T half a journal");
    checkOutputPath(at("v.txt"));
    EXPECT_EQ(slurp(at("v.txt")), "old v\n");
    EXPECT_EQ(names(), std::vector<std::string>{"v.txt"});
}

TEST_F(OutputFileTest, AFullDiskIsOneSentenceAndNoFile) {
    // RLIMIT_FSIZE makes writes past 4 KiB fail with EFBIG, as a full disk fails them with ENOSPC.
    const std::string out = at("big.txt");
    put(out, "old\n");
    const pid_t child = ::fork();
    if (child == 0) {
        std::signal(SIGXFSZ, SIG_IGN);
        rlimit lim{4096, 4096};
        ::setrlimit(RLIMIT_FSIZE, &lim);
        const std::string e = errorOf([&] { writeText(out, std::string(1 << 20, 'x')); });
        ::_exit(e.find("cannot write " + out) == 0 && e.find('\n') == std::string::npos ? 0 : 1);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "the failure was not reported as one sentence naming the file";
    EXPECT_EQ(slurp(out), "old\n");
    EXPECT_EQ(names(), std::vector<std::string>{"big.txt"});
}
