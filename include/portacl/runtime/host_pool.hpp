// Host threads that run the items of a loop together with the calling thread: the block exchange's
// copies (cluster), the Voronoi tracer's per-frame phases and FFTW's parallel loops (fft). The
// threads are started once and kept, so a loop pays a wake-up, not a thread start.
//
// Workers that find no loop to help either sleep at once or, where loops follow one another within
// microseconds (the passes of one FFTW transform), spin a while first so that the next loop starts
// at once; park() ends the spinning early. A caller always takes items of its own loop, so loops run
// by several threads at once, and loops nested in an item (FFTW splits threads among sub-plans),
// always progress whatever the workers are doing.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <type_traits>

#include "portacl/export.hpp"

namespace portacl {

class PORTACL_API HostPool {
public:
    // `threads` in all, the calling thread included (1: the caller runs everything). `spin`: how long
    // an idle worker spins for the next loop before it sleeps (0: it sleeps at once); a caller whose
    // items are all taken spins too, rather than sleeping, while workers finish its last ones.
    explicit HostPool(unsigned threads, std::chrono::microseconds spin = std::chrono::microseconds(0));
    ~HostPool();  // waits for the workers to stop; no loop may be running
    HostPool(const HostPool&) = delete;
    HostPool& operator=(const HostPool&) = delete;

    unsigned threads() const;
    // Starts workers until there are `threads` in all, the caller included (never fewer than before).
    void reserve(unsigned threads);
    // Sends spinning workers to sleep now: the caller's loops are over for a while.
    void park();

    // Calls f(i) for every i in [0, n) on the calling thread and idle workers (no more of them than
    // n - 1 are woken), and returns when every call has returned. The first exception an item throws
    // is rethrown here once the running items have returned; the items nobody has started are skipped.
    template <class F>
    void run(std::size_t n, F&& f) {
        using Fn = std::remove_reference_t<F>;
        if (n == 0) return;
        if (n == 1 || threads() == 1) {
            for (std::size_t i = 0; i < n; ++i) f(i);
            return;
        }
        runItems(n, [](void* fn, std::size_t i) { (*static_cast<Fn*>(fn))(i); },
                 const_cast<void*>(static_cast<const void*>(std::addressof(f))));
    }

    // Calls f(begin, end) on consecutive chunks of [0, n) of at least `grain` items, about four
    // chunks a thread (even enough when items differ in cost), through run(); [0, n) in one call on
    // the caller where it is no more than `grain` items.
    template <class F>
    void forRange(std::size_t n, std::size_t grain, F&& f) {
        if (n == 0) return;
        if (grain == 0) grain = 1;
        if (threads() == 1 || n <= grain) {
            f(std::size_t(0), n);
            return;
        }
        const std::size_t perChunk = (n + 4 * threads() - 1) / (4 * threads());
        const std::size_t chunk = perChunk > grain ? perChunk : grain;
        run((n + chunk - 1) / chunk, [&](std::size_t c) { f(c * chunk, c * chunk + chunk < n ? c * chunk + chunk : n); });
    }

private:
    struct State;
    void runItems(std::size_t n, void (*call)(void*, std::size_t), void* fn);

    std::unique_ptr<State> state_;
};

}  // namespace portacl
