// Files of a lineal path result: HDF5 (maps, profiles, parameters as attributes), CSV (one row per
// displacement) and a PNG picture of a 2-D map. Every writer is atomic (temporary file, then rename).
#pragma once

#include <map>
#include <string>

#include "portacl/lineal_path.hpp"

namespace portacl::lineal {

// Datasets: /L (mz,my,mx) float64, /count and /tried (uint64), /radial/{r,L,vectors},
// /profiles/<name> (ML+1) float64; root attributes: every entry of `parameters` (as strings) plus
// max_length, periodic, shape, convention. Optional /S2 when `s2` is not null (same map layout).
void writeHdf5(const std::string& path, const Result& r, const RadialProfile& radial,
               const std::map<std::string, std::string>& parameters, const std::vector<double>* s2 = nullptr);
// Header "dx,dy,count,tried,L" (2-D) or "dx,dy,dz,count,tried,L" (3-D); L with 17 significant digits.
void writeCsv(const std::string& path, const Result& r);
// An 8-bit RGB picture of the 2-D map (the dz = 0 layer in 3-D): L(dx, dy)/L(0) in whole decades of a
// logarithmic viridis scale (down to the smallest positive value, at most 6 decades), L = 0 in grey,
// dx to the right and dy upwards, with axes, ticks at -ML, -ML/2, 0, ML/2, ML and a colour bar.
void writePng(const std::string& path, const Result& r);

}  // namespace portacl::lineal
