// The serial reference: the same waves as the device version, each edge searched on the CPU in double,
// then the same completeness pass (its filter serially, face by face).
#include <chrono>

#include "voronoi/tracer.hpp"

namespace portacl::voronoi {

Diagram computeReference(const std::vector<io::Ball>& balls, bool completenessPass) {
    const auto start = std::chrono::steady_clock::now();
    Tracer tracer(balls);
    int waves = 0;
    while (true) {
        while (tracer.hasPending() || tracer.seedNextComponent()) {
            while (tracer.hasPending()) {
                const std::vector<EdgeTask> wave = tracer.takePending();
                std::vector<EdgeAnswer> answers(wave.size());
                for (std::size_t i = 0; i < wave.size(); ++i) answers[i] = tracer.solve(wave[i]);
                for (std::size_t i = 0; i < wave.size(); ++i) tracer.accept(wave[i], answers[i]);
                ++waves;
            }
        }
        if (!completenessPass) break;
        const FacePass pass = tracer.faceTasks();
        std::vector<FaceScan> scans(pass.tasks.size());
        for (std::size_t i = 0; i < pass.tasks.size(); ++i)
            scans[i] = tracer.scanFace(pass.tasks[i], pass.known.data() + pass.tasks[i].known0);
        if (!tracer.completePass(pass, scans)) break;
    }
    Diagram d = tracer.finish();
    d.waves = waves;
    canonicalize(d);
    d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return d;
}

}  // namespace portacl::voronoi
