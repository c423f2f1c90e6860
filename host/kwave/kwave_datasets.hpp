// Writing datasets the way k-Wave does: every dataset rank 3, with the `data_type` and
// `domain_type` attributes k-Wave's reader checks. Shared by the input, output and checkpoint files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "portacl/io/hdf5_file.hpp"

namespace portacl::kwave {

void putU64(io::Hdf5File& f, const std::string& name, std::uint64_t v);
void putFloat(io::Hdf5File& f, const std::string& name, double v);
void putFloats(io::Hdf5File& f, const std::string& name, const io::Dims& dims, const std::vector<float>& v,
               int compression = 0);
// Double-precision values (the solver's accumulators), stored as float as k-Wave stores them.
void putFloats(io::Hdf5File& f, const std::string& name, const io::Dims& dims, const std::vector<double>& v,
               int compression = 0);
// A float dataset to be written by parts (Hdf5File::writeFloatRange), with k-Wave's attributes.
void createFloats(io::Hdf5File& f, const std::string& name, const io::Dims& dims, int compression = 0);
// Zero-based indices, written 1-based as MATLAB's sensor and source masks are.
void putIndices(io::Hdf5File& f, const std::string& name, const io::Dims& dims, std::vector<std::uint64_t> zeroBased);

}  // namespace portacl::kwave
