// Files of a lineal path result: HDF5 (maps, profiles, parameters as attributes), NumPy's .npy (the
// L map), CSV (one row per displacement) and a PNG picture of a 2-D map. Every writer is atomic
// (temporary file, then rename).
#pragma once

#include "portacl/export.hpp"

#include <cstdint>
#include <map>
#include <string>

#include "portacl/lineal_path.hpp"

namespace portacl::lineal {

// An HDF5 attribute's value, stored with its own type: text (a string), a real (float64), an integer
// (int64) or a flag (uint8, 0 or 1, as h5py stores a bool).
struct PORTACL_API Parameter {
    enum class Kind { Text, Real, Integer, Flag } kind = Kind::Text;
    std::string text;
    double real = 0;
    std::int64_t integer = 0;
    Parameter(std::string s) : kind(Kind::Text), text(std::move(s)) {}
    Parameter(const char* s) : kind(Kind::Text), text(s) {}
    Parameter(double v) : kind(Kind::Real), real(v) {}
    Parameter(int v) : kind(Kind::Integer), integer(v) {}
    Parameter(std::int64_t v) : kind(Kind::Integer), integer(v) {}
    static Parameter flag(bool v) {
        Parameter p{static_cast<std::int64_t>(v)};
        p.kind = Kind::Flag;
        return p;
    }
};

// Datasets: /L float64, /count and /tried (uint64), shaped (my, mx) for a 2-D image and (mz, my, mx)
// for a volume; /radial/{r,L,vectors}, /profiles/<name> (ML+1) float64. Root attributes: every entry
// of `parameters`, plus max_length (int64), periodic (uint8 0/1), shape (int64 array: the image's
// (ny, nx) or (nz, ny, nx)), radial_bin_width (float64) and convention (text). Optional /S2 when `s2`
// is not null (same layout as /L).
PORTACL_API void writeHdf5(const std::string& path, const Result& r, const RadialProfile& radial,
                           const std::map<std::string, Parameter>& parameters, const std::vector<double>* s2 = nullptr);
// The L map as a NumPy .npy file: float64, shape (my, mx) for a 2-D image, (mz, my, mx) for a volume;
// L[dy + ML, dx + ML] as in the HDF5 file.
PORTACL_API void writeNpy(const std::string& path, const Result& r);
// Header "dx,dy,count,tried,L" (2-D) or "dx,dy,dz,count,tried,L" (3-D); L with 17 significant digits.
PORTACL_API void writeCsv(const std::string& path, const Result& r);
// An 8-bit RGB picture of the 2-D map (the dz = 0 layer in 3-D): L(dx, dy)/L(0) in whole decades of a
// logarithmic viridis scale (down to the smallest positive value, at most 6 decades), L = 0 in grey,
// dx to the right and dy upwards, with axes, ticks at -ML, -ML/2, 0, ML/2, ML and a colour bar.
PORTACL_API void writePng(const std::string& path, const Result& r);

}  // namespace portacl::lineal
