#include "portacl/cluster/world.hpp"

#include "portacl/cluster/collectives.hpp"
#include "portacl/runtime/host_cores.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#ifdef PORTACL_HAVE_MPI
#include <mpi.h>
#endif

namespace portacl::cluster {
namespace {

World* currentWorld = nullptr;

#ifdef PORTACL_HAVE_MPI

std::string gatherText(const std::string& mine, int size, std::vector<std::string>* all) {
    const int length = static_cast<int>(mine.size());
    std::vector<int> lengths(static_cast<std::size_t>(size));
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> offsets(lengths.size(), 0);
    int total = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
        offsets[r] = total;
        total += lengths[r];
    }
    std::string joined(static_cast<std::size_t>(total), '\0');
    MPI_Gatherv(mine.data(), length, MPI_CHAR, joined.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
    if (all) {
        all->clear();
        for (std::size_t r = 0; r < lengths.size(); ++r) all->push_back(joined.substr(offsets[r], lengths[r]));
    }
    return joined;
}
#endif

}  // namespace

// An MPI launcher (Open MPI's mpirun, a PMI or PMIx one such as srun or MPICH's hydra) started this
// process: without one, MPI is left alone and the process is a world of one.
bool launchedByMpi() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"})
        if (const char* s = std::getenv(v); s && *s) return true;
    return false;
}

bool builtWithMpi() {
#ifdef PORTACL_HAVE_MPI
    return true;
#else
    return false;
#endif
}

World::World(int* argc, char*** argv) {
    char name[256] = {0};
    if (::gethostname(name, sizeof name - 1) == 0) host_ = name;
    currentWorld = this;
#ifdef PORTACL_HAVE_MPI
    if (!launchedByMpi()) return;
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        throw Error("MPI did not start (MPI_Init_thread failed) although an MPI launcher started this process");
    mpi_ = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    auto* local = new MPI_Comm;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, local);
    MPI_Comm_rank(*local, &localRank_);
    MPI_Comm_size(*local, &localSize_);
    local_ = local;
    const unsigned mine = usableCores();
    MPI_Allreduce(&mine, &fewestCores_, 1, MPI_UNSIGNED, MPI_MIN, MPI_COMM_WORLD);
#else
    (void)argc;
    (void)argv;
#endif
}

World::~World() {
#ifdef PORTACL_HAVE_MPI
    if (mpi_) {
        auto* local = static_cast<MPI_Comm*>(local_);
        MPI_Comm_free(local);
        delete local;
        MPI_Finalize();
    }
#endif
    if (currentWorld == this) currentWorld = nullptr;
}

World* World::current() { return currentWorld; }

World& World::process() {
    if (currentWorld) return *currentWorld;
    static World own(nullptr, nullptr);  // finalizes MPI at exit, after main's objects are gone
    return own;
}

std::string World::bindingAdvice() const {
    if (!mpi_ || fewestCores_ == 0) return "";
    const unsigned node = machineCores(), share = node / static_cast<unsigned>(std::max(localSize_, 1));
    if (fewestCores_ * 2 > share) return "";
    const bool one = fewestCores_ == 1;
    return "the launcher bound each rank to " + std::to_string(fewestCores_) + (one ? " core" : " cores") + " of this node's " +
           std::to_string(node) + " (Open MPI binds every rank of a job of two ranks or fewer to one core), so a rank's host threads take turns on " +
           (one ? "it" : "them") + ": start the job with `mpirun --bind-to none` to give every rank all the node's cores, or with `--map-by slot:PE=" +
           std::to_string(share) + "` to give each its share";
}

std::string World::agree(const std::string& failure) const {
    if (!distributed()) return failure;
#ifdef PORTACL_HAVE_MPI
    std::vector<std::string> all;
    gatherText(host_ + '\n' + failure, size_, &all);
    std::string verdict;
    if (rank_ == 0) {
        int failed = 0, first = -1;
        bool alike = true;
        std::string firstText;
        for (int r = 0; r < size_; ++r) {
            const std::string& entry = all[static_cast<std::size_t>(r)];
            const auto cut = entry.find('\n');
            const std::string text = entry.substr(cut + 1);
            if (text.empty()) {
                alike = false;
                continue;
            }
            if (first < 0) {
                first = r;
                firstText = text;
                verdict = "rank " + std::to_string(r) + " on " + entry.substr(0, cut) + ": " + text;
            } else if (text != firstText) {
                alike = false;
            }
            ++failed;
        }
        if (failed && alike) verdict = firstText;
    }
    return broadcast(verdict);
#else
    return failure;
#endif
}

std::string World::broadcast(const std::string& fromRoot) const {
    if (!distributed()) return fromRoot;
#ifdef PORTACL_HAVE_MPI
    std::uint64_t length = fromRoot.size();
    MPI_Bcast(&length, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    std::string text = rank_ == 0 ? fromRoot : std::string(length, '\0');
    if (length) MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD);
    return text;
#else
    return fromRoot;
#endif
}

void World::barrier() const {
#ifdef PORTACL_HAVE_MPI
    if (mpi_) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

}  // namespace portacl::cluster
