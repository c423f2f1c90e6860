// The serial reference: the same waves as the device version, each edge searched on the CPU in double.
#include <chrono>

#include "voronoi/tracer.hpp"

namespace portacl::voronoi {

Diagram computeReference(const std::vector<io::Ball>& balls) {
    const auto start = std::chrono::steady_clock::now();
    Tracer tracer(balls);
    int waves = 0;
    while (tracer.seedNextComponent()) {
        while (tracer.hasPending()) {
            const std::vector<EdgeTask> wave = tracer.takePending();
            std::vector<EdgeAnswer> answers(wave.size());
            for (std::size_t i = 0; i < wave.size(); ++i) answers[i] = tracer.solve(wave[i]);
            for (std::size_t i = 0; i < wave.size(); ++i) tracer.accept(wave[i], answers[i]);
            ++waves;
        }
    }
    Diagram d = tracer.finish();
    d.waves = waves;
    canonicalize(d);
    d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return d;
}

}  // namespace portacl::voronoi
