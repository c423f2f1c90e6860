// portacl predicates: a synthetic batch of orient3d or insphere queries through the two-phase
// dispatch; prints how many queries phase 1 flagged and phase 2 ran on, the device times, and
// (with --check) whether every sign equals the exact serial reference.
#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <vector>

#include "command.hpp"
#include "portacl/predicates.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::cli {
namespace {

int runPredicates(const std::vector<std::string>& args) {
    po::options_description desc("portacl predicates options");
    CommonOptions common;
    common.add(desc);
    std::size_t count = 1 << 20, cloud = 1 << 16;
    double fraction = 0.01;
    std::string which = "orient3d";
    bool check = false;
    unsigned seed = 1;
    int repeat = 1;
    desc.add_options()("predicate", po::value(&which)->default_value(which), "orient3d or insphere")(
        "count,n", po::value(&count)->default_value(count), "number of queries")(
        "points", po::value(&cloud)->default_value(cloud), "random points the queries draw from")(
        "degenerate-fraction", po::value(&fraction)->default_value(fraction),
        "fraction of exactly degenerate (coplanar / cospherical) queries")(
        "seed", po::value(&seed)->default_value(seed), "random seed")(
        "repeat", po::value(&repeat)->default_value(repeat),
        "evaluate the batch this many times after a first run and report the median wall time")(
        "check", po::bool_switch(&check), "compare every sign with the exact serial reference");
    po::variables_map vm;
    if (!parseArgs(args, desc, {}, vm,
                   "usage: portacl predicates [--predicate orient3d|insphere] [--count N] "
                   "[--degenerate-fraction F] [--precision float|double|mixed] [--check] [--repeat N]",
                   common.help))
        return 0;
    predicates::Predicate p;
    if (which == "orient3d") p = predicates::Predicate::Orient3d;
    else if (which == "insphere") p = predicates::Predicate::Insphere;
    else throw Error("unknown predicate '" + which + "'; use orient3d or insphere");
    if (count >= (std::size_t(1) << 32)) throw Error("--count must be below 2^32");
    if (repeat < 1) throw Error("--repeat must be at least 1");
    const Precision mode = common.parsedPrecision();

    Context ctx(selectDevice(common.device), common.contextOptions());
    if (mode == Precision::Double) ctx.requirePrecision(Precision::Double, /*mixedOffered=*/true);
    const predicates::Batch batch = predicates::syntheticBatch(p, count, cloud, fraction, seed);
    // Wall time too (some drivers, rusticl among them, report no event times): of the one run, or the
    // median of --repeat runs after it (the kernels then built and cached).
    std::vector<double> walls;
    predicates::Result r;
    for (int i = 0; i < (repeat > 1 ? repeat + 1 : 1); ++i) {
        const auto start = std::chrono::steady_clock::now();
        r = predicates::evaluate(ctx, p, batch.points, batch.queries, mode);
        walls.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    if (repeat > 1) walls.erase(walls.begin());
    std::sort(walls.begin(), walls.end());
    const double wall = walls[walls.size() / 2];

    std::cout << which << " on " << ctx.device().label() << ", " << precisionName(mode) << ": " << r.report.items
              << " queries, " << r.report.undecided << " flagged by phase 1, " << r.report.phase2Items
              << " run by phase 2";
    if (r.report.phase2 != Phase2Arithmetic::None) std::cout << " in " << phase2ArithmeticName(r.report.phase2);
    if (r.report.phase2 == Phase2Arithmetic::DoubleFloat)
        std::cout << ", " << r.report.hostItems << " of them finished exactly on the host";
    if (r.report.phase2 == Phase2Arithmetic::Host) std::cout << " (exact big integers)";
    std::cout << "\n" << std::fixed << std::setprecision(3) << "device time: phase 1 " << r.report.phase1Seconds * 1e3
              << " ms, list count " << r.report.compactSeconds * 1e3 << " ms, phase 2 "
              << r.report.phase2Seconds * 1e3 << " ms";
    if (r.report.phase2 == Phase2Arithmetic::DoubleFloat || r.report.phase2 == Phase2Arithmetic::Host)
        std::cout << ", host step " << r.report.hostSeconds * 1e3 << " ms";
    std::cout << "\nwall time " << wall * 1e3 << " ms (uploads, kernels, download, host step"
              << (repeat > 1 ? "; median of " + std::to_string(repeat) + " runs after a first" : std::string()) << ")\n";
    int rc = 0;
    if (check) {
        const auto exact = predicates::evaluateReference(p, batch.points, batch.queries);
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < exact.size(); ++i) wrong += exact[i] != r.signs[i];
        std::cout << "check: " << wrong << " of " << exact.size() << " signs differ from the exact reference\n";
        rc = wrong == 0 || mode == Precision::Float ? 0 : 1;  // float is allowed to be wrong
    }
    printProfile(ctx, common);
    return rc;
}

}  // namespace

PORTACL_COMMAND("predicates", "orient3d / insphere batches through the two-phase float/double dispatch",
                runPredicates);

}  // namespace portacl::cli
