// Output files are complete or absent. Content goes to a temporary file beside the target, which is
// renamed over the target only when everything was written and closed. Special files (/dev/null, a
// fifo, /dev/stdout, anything that exists and is not a regular file) are written in place and never
// replaced. Outputs are checked before the work that produces them starts (their folder, their
// extension, and that none of them is one of the inputs). Temporaries of processes that died are
// removed the next time a command writes beside them; outputs that belong together commit as a group
// through a journal that the next writer rolls forward when a run died between the renames.
#pragma once

#include "portacl/export.hpp"

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace portacl {

// ---- checks before any work ----

// Throws portacl::Error, in one sentence naming the option, when `path` cannot be an output: empty,
// an existing folder, in a folder that does not exist or cannot be written, or the same file (device
// and inode, so links and other spellings count) as one of `inputs`. Also removes stale temporaries
// beside it. `option` names the flag in the message ("-o", "--edges").
PORTACL_API void checkOutputPath(const std::string& path, const std::vector<std::string>& inputs = {},
                                 const std::string& option = "the output");

// Throws when `path` (unless it is a special file such as /dev/null) does not end in one of
// `extensions` (lower case, without the dot), listing them.
PORTACL_API void checkOutputExtension(const std::string& path, const std::vector<std::string>& extensions,
                                      const std::string& option = "the output");

// Throws when two of `outputs` (empty entries ignored) name the same file.
PORTACL_API void checkDistinctOutputs(const std::vector<std::pair<std::string, std::string>>& optionAndPath);

// True when `path` is written in place: it exists and is not a regular file, or it lies under /dev/
// or /proc/ (/dev/stdout follows to whatever standard output is, a terminal, a pipe or a file).
PORTACL_API bool isSpecialOutput(const std::string& path);

// Removes "<path>.tmp.<pid>..." files of processes that no longer exist, after rolling forward any
// group commit such a process had started ("<path>.commit.<pid>"). Never throws.
PORTACL_API void removeStaleTemporaries(const std::string& path);

// While it lives, the outputs written into the folders of `paths` (every file of a batch) take the
// stale temporaries to remove from one reading of each folder made here, instead of reading the
// whole folder again for each file: a batch of n files into one folder then costs n, not n^2.
// Temporaries of processes that die meanwhile are left to the next command.
class PORTACL_API OutputFolderScan {
public:
    explicit OutputFolderScan(const std::vector<std::string>& paths);
    ~OutputFolderScan();
    OutputFolderScan(const OutputFolderScan&) = delete;
    OutputFolderScan& operator=(const OutputFolderScan&) = delete;

private:
    std::vector<std::string> folders_;
};

// ---- writing ----

// One output file: write to writePath(), then commit(). Destroying it uncommitted removes the temporary.
class PORTACL_API AtomicOutput {
public:
    explicit AtomicOutput(const std::string& path);
    ~AtomicOutput();
    AtomicOutput(const AtomicOutput&) = delete;
    AtomicOutput& operator=(const AtomicOutput&) = delete;

    const std::string& path() const { return path_; }
    // A temporary beside the target (the target of a symbolic link, so that the link stays), or the
    // special file itself.
    const std::string& writePath() const { return write_; }
    bool inPlace() const { return inPlace_; }
    void commit();   // throws portacl::Error naming path() when the rename fails
    void discard();  // removes the temporary (nothing for a special file)

private:
    friend class OutputGroup;
    std::string path_, target_, write_;
    bool inPlace_ = false, done_ = false;
};

// Outputs that belong together (Voronoi's vertices and edges, its frames): after every member's
// temporary is written, commit() records the renames in one record in each folder of the members
// (".portacl-commit.<pid>.<n>"), renames them all, and removes the records. A run killed between
// the renames is completed by the next writer of any file in those folders.
class PORTACL_API OutputGroup {
public:
    AtomicOutput& add(const std::string& path);
    void commit();

private:
    std::vector<std::unique_ptr<AtomicOutput>> members_;
};

// Writes through `write` into a temporary, checks every write and the close, then commits. On any
// failure (the writer throws, the disk is full) the temporary is removed and portacl::Error says which file.
PORTACL_API void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write,
                                     bool binary = false);
// The same for one member of a group: writes `out`'s temporary, leaving the commit to the group.
PORTACL_API void writeFileContents(const AtomicOutput& out, const std::function<void(std::ostream&)>& write, bool binary = false);

// Removes the temporary of every output this process has not committed or discarded (AtomicOutput,
// and so every writer above), for a process that a signal ends: mpirun's SIGTERM when another rank
// died, Ctrl-C. A file a writer creates at that very moment may stay, for the next writer beside it
// to remove. Not async-signal-safe: call it from a thread the signal woke, not from the handler.
PORTACL_API void removeUncommittedTemporaries();

// The older interface over a fixed temporary name "<path>.tmp.<pid>" (the path itself for a special
// file), for writers that need a path: write there, then commitTemporary(path), or discardTemporary(path).
PORTACL_API std::string temporaryPathFor(const std::string& path);
PORTACL_API void commitTemporary(const std::string& path);
PORTACL_API void discardTemporary(const std::string& path);

}  // namespace portacl
