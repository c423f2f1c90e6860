#include "portacl/runtime/output_file.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "portacl/runtime/error.hpp"

namespace portacl {
namespace {

bool startsWith(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

std::string folderOf(const std::string& path) {
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

std::string baseOf(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The file a write lands on: a symbolic link's final target (so that the link survives the rename),
// else the path itself.
std::string resolvedTarget(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    char* real = ::realpath(path.c_str(), nullptr);
    if (!real) return path;  // a dangling link is replaced like a file
    std::string r = real;
    std::free(real);
    return r;
}

bool processIsGone(long pid) {
    if (pid <= 0 || pid == ::getpid()) return false;
    return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

// "<base><marker><digits>" optionally followed by "." and anything: the pid, else -1.
long pidAfter(const std::string& name, const std::string& base, const std::string& marker) {
    const std::string head = base + marker;
    if (!startsWith(name, head) || name.size() == head.size()) return -1;
    std::size_t i = head.size(), j = i;
    while (j < name.size() && std::isdigit(static_cast<unsigned char>(name[j]))) ++j;
    if (j == i || j - i > 9 || (j < name.size() && name[j] != '.')) return -1;
    return std::stol(name.substr(i, j - i));
}

std::atomic<unsigned> sequence{0};

std::string freshTemporary(const std::string& target) {
    const unsigned n = sequence++;
    return target + ".tmp." + std::to_string(::getpid()) + (n ? "." + std::to_string(n) : std::string());
}

bool renameFile(const std::string& from, const std::string& to, std::string& why) {
    if (std::rename(from.c_str(), to.c_str()) == 0) return true;
    why = std::strerror(errno);
    return false;
}

// A journal lists "T <tmp>\t<target>" and "J <journal>" lines and ends with "end". Rolls a complete
// one forward (renames whatever temporaries remain) and removes every journal it names.
void rollForward(const std::string& journal) {
    std::ifstream in(journal);
    std::vector<std::pair<std::string, std::string>> renames;
    std::vector<std::string> journals;
    std::string line;
    bool complete = false;
    while (std::getline(in, line)) {
        if (line == "end") complete = true;
        else if (startsWith(line, "T ")) {
            const auto tab = line.find('\t');
            if (tab != std::string::npos) renames.emplace_back(line.substr(2, tab - 2), line.substr(tab + 1));
        } else if (startsWith(line, "J ")) journals.push_back(line.substr(2));
    }
    in.close();
    if (complete) {
        for (const auto& [tmp, target] : renames)
            if (::access(tmp.c_str(), F_OK) == 0) std::rename(tmp.c_str(), target.c_str());
        for (const auto& j : journals) std::remove(j.c_str());
    }
    std::remove(journal.c_str());
}

// A group's commit record, one per folder of its members: "<folder>/.portacl-commit.<pid>.<n>",
// written as "<record>.part" and renamed into place.
const char* const kRecordHead = ".portacl-commit.";

// What a scan of a folder found of processes that no longer exist: per output name, its stale
// temporaries and journals; and the folder's commit records.
struct FolderListing {
    std::map<std::string, std::vector<std::string>> journals, temporaries;  // by the output's name
    std::vector<std::string> records, partialRecords;
};

FolderListing scanFolder(const std::string& folder) {
    FolderListing l;
    DIR* dir = ::opendir(folder.c_str());
    if (!dir) return l;
    while (const dirent* e = ::readdir(dir)) {
        const std::string name = e->d_name;
        if (startsWith(name, kRecordHead)) {
            if (processIsGone(pidAfter(name, ".portacl-commit", "."))) {
                const bool partial = name.size() > 5 && name.compare(name.size() - 5, 5, ".part") == 0;
                (partial ? l.partialRecords : l.records).push_back(folder + "/" + name);
            }
            continue;
        }
        // "<output>.commit.<pid>" and "<output>.tmp.<pid>[.more]": every place the marker could end the
        // output's name.
        for (const char* marker : {".commit.", ".tmp."}) {
            for (auto at = name.find(marker); at != std::string::npos && at > 0; at = name.find(marker, at + 1)) {
                const std::string base = name.substr(0, at);
                if (!processIsGone(pidAfter(name, base, marker))) continue;
                (marker[1] == 'c' ? l.journals : l.temporaries)[base].push_back(folder + "/" + name);
                break;
            }
        }
    }
    ::closedir(dir);
    return l;
}

// The listings of the folders an OutputFolderScan holds, so that each file written there does not
// read the whole folder again.
struct ScanRegistry {
    std::mutex mutex;
    std::map<std::string, std::pair<int, FolderListing>> folders;  // holders, listing
};
ScanRegistry& scans() {
    static ScanRegistry r;
    return r;
}

// Rolls the listing's records forward and removes what it found for `base`; with the registry's lock.
void cleanFromListing(FolderListing& l, const std::string& base) {
    for (const auto& r : l.records) rollForward(r);  // first: a committed group's temporaries are its new files
    for (const auto& r : l.partialRecords) std::remove(r.c_str());
    l.records.clear(), l.partialRecords.clear();
    if (auto it = l.journals.find(base); it != l.journals.end()) {
        for (const auto& j : it->second) rollForward(j);
        l.journals.erase(it);
    }
    if (auto it = l.temporaries.find(base); it != l.temporaries.end()) {
        for (const auto& t : it->second) std::remove(t.c_str());
        l.temporaries.erase(it);
    }
}

// The temporaries of the outputs this process has open (not committed, not discarded), for
// removeUncommittedTemporaries.
struct OpenTemporaries {
    std::mutex mutex;
    std::set<std::string> paths;
};
OpenTemporaries& openTemporaries() {
    static OpenTemporaries* t = new OpenTemporaries;  // never destroyed: a signal may come during exit
    return *t;
}
void opened(const std::string& path) {
    std::lock_guard<std::mutex> lock(openTemporaries().mutex);
    openTemporaries().paths.insert(path);
}
void closed(const std::string& path) {
    std::lock_guard<std::mutex> lock(openTemporaries().mutex);
    openTemporaries().paths.erase(path);
}

}  // namespace

void removeUncommittedTemporaries() {
    OpenTemporaries& t = openTemporaries();
    std::lock_guard<std::mutex> lock(t.mutex);
    for (const auto& p : t.paths) ::unlink(p.c_str());
    t.paths.clear();
}

OutputFolderScan::OutputFolderScan(const std::vector<std::string>& paths) {
    for (const auto& p : paths) {
        if (p.empty() || p == "-" || isSpecialOutput(p)) continue;
        const std::string folder = folderOf(resolvedTarget(p));
        if (std::find(folders_.begin(), folders_.end(), folder) != folders_.end()) continue;
        folders_.push_back(folder);
        FolderListing listing = scanFolder(folder);
        std::lock_guard<std::mutex> lock(scans().mutex);
        auto& slot = scans().folders[folder];
        if (slot.first++ == 0) slot.second = std::move(listing);
    }
}

OutputFolderScan::~OutputFolderScan() {
    std::lock_guard<std::mutex> lock(scans().mutex);
    for (const auto& f : folders_) {
        auto it = scans().folders.find(f);
        if (it != scans().folders.end() && --it->second.first == 0) scans().folders.erase(it);
    }
}

bool isSpecialOutput(const std::string& path) {
    if (startsWith(path, "/dev/") || startsWith(path, "/proc/")) return true;
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

void removeStaleTemporaries(const std::string& path) {
    if (path.empty() || isSpecialOutput(path)) return;
    const std::string target = resolvedTarget(path);
    const std::string folder = folderOf(target), base = baseOf(target);
    {
        std::lock_guard<std::mutex> lock(scans().mutex);
        auto it = scans().folders.find(folder);
        if (it != scans().folders.end()) {
            cleanFromListing(it->second.second, base);
            return;
        }
    }
    FolderListing listing = scanFolder(folder);
    cleanFromListing(listing, base);
}

void checkOutputPath(const std::string& path, const std::vector<std::string>& inputs, const std::string& option) {
    if (path.empty()) throw Error(option + " names no file");
    if (path == "-") return;  // standard output, where the command supports it
    struct stat out {};
    const bool exists = ::stat(path.c_str(), &out) == 0;
    if (exists && S_ISDIR(out.st_mode)) throw Error("cannot write " + path + " (" + option + "): it is a folder; give a file name");
    if (isSpecialOutput(path)) return;
    const std::string target = resolvedTarget(path);
    const std::string folder = folderOf(target);
    struct stat dir {};
    if (::stat(folder.c_str(), &dir) != 0)
        throw Error("cannot write " + path + " (" + option + "): the folder " + folder + " does not exist");
    if (!S_ISDIR(dir.st_mode)) throw Error("cannot write " + path + " (" + option + "): " + folder + " is not a folder");
    if (::access(folder.c_str(), W_OK | X_OK) != 0)
        throw Error("cannot write " + path + " (" + option + "): the folder " + folder + " is not writable (" +
                    std::strerror(errno) + ")");
    if (exists) {
        for (const auto& input : inputs) {
            struct stat in {};
            if (input.empty() || ::stat(input.c_str(), &in) != 0) continue;
            if (in.st_dev == out.st_dev && in.st_ino == out.st_ino)
                throw Error("refusing to write " + path + " (" + option + "): it is the input " + input +
                            ", which would be lost; choose another output name");
        }
    }
    removeStaleTemporaries(path);
}

void checkOutputExtension(const std::string& path, const std::vector<std::string>& extensions, const std::string& option) {
    if (path.empty() || path == "-" || isSpecialOutput(path)) return;
    const std::string base = baseOf(path);
    const auto dot = base.find_last_of('.');
    std::string ext = dot == std::string::npos ? "" : base.substr(dot + 1);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    if (std::find(extensions.begin(), extensions.end(), ext) != extensions.end()) return;
    std::string list;
    for (std::size_t i = 0; i < extensions.size(); ++i)
        list += (i == 0 ? "." : i + 1 == extensions.size() ? " or ." : ", .") + extensions[i];
    throw Error("cannot write " + path + " (" + option + "): the name must end in " + list);
}

void checkDistinctOutputs(const std::vector<std::pair<std::string, std::string>>& optionAndPath) {
    auto key = [](const std::string& p) {
        char* real = ::realpath(folderOf(resolvedTarget(p)).c_str(), nullptr);
        std::string k = real ? std::string(real) + "/" + baseOf(resolvedTarget(p)) : p;
        std::free(real);
        return k;
    };
    for (std::size_t i = 0; i < optionAndPath.size(); ++i)
        for (std::size_t j = i + 1; j < optionAndPath.size(); ++j) {
            const auto& [oa, a] = optionAndPath[i];
            const auto& [ob, b] = optionAndPath[j];
            if (a.empty() || b.empty() || a == "-" || b == "-" || isSpecialOutput(a) || isSpecialOutput(b)) continue;
            if (key(a) == key(b))
                throw Error(oa + " and " + ob + " both name " + a + "; give each output its own file");
        }
}

AtomicOutput::AtomicOutput(const std::string& path) : path_(path) {
    inPlace_ = isSpecialOutput(path);
    if (inPlace_) {
        target_ = write_ = path;
        return;
    }
    target_ = resolvedTarget(path);
    removeStaleTemporaries(target_);
    write_ = freshTemporary(target_);
    opened(write_);
}

AtomicOutput::~AtomicOutput() {
    if (!done_) discard();
}

void AtomicOutput::discard() {
    if (!inPlace_ && !done_) {
        std::remove(write_.c_str());
        closed(write_);
    }
    done_ = true;
}

void AtomicOutput::commit() {
    if (done_) return;
    done_ = true;
    if (inPlace_) return;
    closed(write_);
    std::string why;
    if (!renameFile(write_, target_, why)) {
        std::remove(write_.c_str());
        throw Error("cannot write " + path_ + ": " + why);
    }
}

AtomicOutput& OutputGroup::add(const std::string& path) {
    members_.push_back(std::make_unique<AtomicOutput>(path));
    return *members_.back();
}

void OutputGroup::commit() {
    std::vector<AtomicOutput*> renamed;
    for (auto& m : members_)
        if (!m->inPlace_ && !m->done_) renamed.push_back(m.get());
    bool journaled = renamed.size() > 1;
    for (const auto* m : renamed)
        if (m->write_.find_first_of("\t\n") != std::string::npos || m->target_.find_first_of("\t\n") != std::string::npos)
            journaled = false;  // names a journal line cannot hold: plain renames, one after another
    // One record in each folder of the members (its size grows with the group, its count with the
    // folders only), listing every rename and every record.
    std::vector<std::string> records;
    if (journaled) {
        static std::atomic<unsigned> groups{0};
        const std::string tag = kRecordHead + std::to_string(::getpid()) + "." + std::to_string(groups++);
        for (const auto* m : renamed) {
            const std::string record = folderOf(m->target_) + "/" + tag;
            if (std::find(records.begin(), records.end(), record) == records.end()) records.push_back(record);
        }
        std::string text;
        for (const auto* m : renamed) text += "T " + m->write_ + "\t" + m->target_ + "\n";
        for (const auto& r : records) text += "J " + r + "\n";
        text += "end\n";
        for (std::size_t i = 0; i < records.size(); ++i) {
            // Written whole and renamed into place: the first complete record is the commit.
            const std::string part = records[i] + ".part";
            std::ofstream j(part, std::ios::binary | std::ios::trunc);
            j << text;
            j.close();
            std::string why;
            if (!j || !renameFile(part, records[i], why)) {
                std::remove(part.c_str());
                for (std::size_t k = 0; k < i; ++k) std::remove(records[k].c_str());
                for (auto& m : members_) m->discard();
                throw Error("cannot write " + renamed.front()->path_ + ": its commit record could not be written in " +
                            folderOf(records[i]));
            }
        }
    }
    std::string failure;
    for (auto* m : renamed) {
        std::string why;
        m->done_ = true;
        closed(m->write_);
        if (!renameFile(m->write_, m->target_, why) && failure.empty()) failure = "cannot write " + m->path_ + ": " + why;
    }
    for (const auto& r : records) std::remove(r.c_str());
    for (auto& m : members_) m->done_ = true;
    if (!failure.empty()) {
        for (auto* m : renamed) std::remove(m->write_.c_str());
        throw Error(failure);
    }
}

void writeFileContents(const AtomicOutput& out, const std::function<void(std::ostream&)>& write, bool binary) {
    const std::string& path = out.path();
    std::ofstream os(out.writePath(), binary ? std::ios::binary | std::ios::trunc : std::ios::trunc);
    if (!os) throw Error("cannot create " + path + ": " + std::strerror(errno));
    write(os);
    os.flush();
    const bool written = static_cast<bool>(os);
    const int err = errno;
    os.close();
    if (!written || !os) throw Error("cannot write " + path + ": " + (err ? std::strerror(err) : "the disk refused the data (full?)"));
}

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write, bool binary) {
    AtomicOutput out(path);
    writeFileContents(out, write, binary);
    out.commit();
}

std::string temporaryPathFor(const std::string& path) {
    if (isSpecialOutput(path)) return path;
    return resolvedTarget(path) + ".tmp." + std::to_string(::getpid());
}

void discardTemporary(const std::string& path) {
    if (isSpecialOutput(path)) return;
    std::remove(temporaryPathFor(path).c_str());
}

void commitTemporary(const std::string& path) {
    if (isSpecialOutput(path)) return;
    std::string why;
    if (!renameFile(temporaryPathFor(path), resolvedTarget(path), why)) {
        discardTemporary(path);
        throw Error("cannot write " + path + ": " + why);
    }
}

}  // namespace portacl
