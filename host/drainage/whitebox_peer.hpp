// WhiteboxTools beside the drainage bench's rows on CPU devices (the whitebox_workflows wheel, through
// tools/bench/python_peers.py, on as many threads as the device has cores): each call's input is
// written as a GeoTIFF, the tool's answer read back and compared with the row's own before its time
// goes beside the row.
#pragma once

#include <string>
#include <vector>

#include "bench/python_peer.hpp"
#include "portacl/drainage.hpp"

namespace portacl::drainage {

class WhiteboxPeer {
public:
    WhiteboxPeer(unsigned threads, int repeats) : threads_(threads), repeats_(repeats) {}

    // The tool `op` of python_peers.py on `cells` in `frame`, written as `type`: its output raster, or
    // false with the row's column saying why.
    bool run(const std::string& op, const io::RasterFrame& frame, const std::vector<double>& cells, io::RasterType type, io::Raster& output);
    // The row's peer column: the time of the last run when `differs` is empty, else why not.
    void column(BenchRecord& rec, const std::string& differs = "") const;
    // A column without a time, for a row WhiteboxTools has no tool for.
    void none(BenchRecord& rec, const std::string& why) const { rec.peer = "WhiteboxTools: " + why; }

private:
    unsigned threads_;
    int repeats_;
    bench::PythonPeer peer_{"whitebox"};
    double seconds_ = 0;
    std::string failure_;
};

// D8 directions as WhiteboxTools' pointer codes, D∞ angles as its azimuths (degrees clockwise from
// north; -1 where no facet descends).
std::vector<double> whiteboxPointers(const DirectionGrid& g);
std::vector<double> whiteboxAzimuths(const DinfGrid& g);
// Where two labellings of the cells differ as partitions ("" when one maps onto the other).
std::string partitionDifference(const std::vector<std::int32_t>& ours, const std::vector<double>& theirs);

}  // namespace portacl::drainage
