// WhiteboxPeer and the encodings it writes (whitebox_peer.hpp).
#include "drainage/whitebox_peer.hpp"

#include <cmath>
#include <limits>
#include <unordered_map>

#include "portacl/io/raster.hpp"

namespace portacl::drainage {

bool WhiteboxPeer::run(const std::string& op, const io::RasterFrame& frame, const std::vector<double>& cells, io::RasterType type,
                       io::Raster& output) {
    seconds_ = std::numeric_limits<double>::quiet_NaN();
    failure_.clear();
    if (!peer_.available()) {
        failure_ = peer_.name();
        return false;
    }
    const std::string in = peer_.file("in.tif"), out = peer_.file("out.tif");
    io::writeRaster(in, frame, cells, type, false, 0, io::RasterCompression::None);
    seconds_ = peer_.time(op, in, out, threads_, repeats_, "", failure_);
    if (std::isnan(seconds_)) return false;
    output = io::readRaster(out);
    if (output.rows() != frame.rows || output.cols() != frame.cols) {
        failure_ = peer_.name() + ": its " + op + " has another shape";
        seconds_ = std::numeric_limits<double>::quiet_NaN();
        return false;
    }
    return true;
}

void WhiteboxPeer::column(BenchRecord& rec, const std::string& differs) const {
    bench::setPeerColumn(rec, peer_, seconds_, failure_, threads_, differs);
}

std::vector<double> whiteboxPointers(const DirectionGrid& g) { return encodeDirections(g, Encoding::Whitebox).codes; }

std::vector<double> whiteboxAzimuths(const DinfGrid& g) {
    std::vector<double> az(g.angle.size());
    for (std::size_t i = 0; i < az.size(); ++i)
        az[i] = g.angle[i] < 0 ? -1 : std::fmod(450.0 - g.angle[i] * 180.0 / M_PI, 360.0);
    return az;
}

std::string partitionDifference(const std::vector<std::int32_t>& ours, const std::vector<double>& theirs) {
    std::unordered_map<std::int32_t, double> toTheirs;
    std::unordered_map<double, std::int32_t> toOurs;
    for (std::size_t i = 0; i < ours.size(); ++i) {
        const auto a = toTheirs.emplace(ours[i], theirs[i]).first->second;
        const auto b = toOurs.emplace(theirs[i], ours[i]).first->second;
        if (a != theirs[i] || b != ours[i]) return "cell " + std::to_string(i) + " is in another basin";
    }
    return "";
}

}  // namespace portacl::drainage
