// The check every HDF5 reader makes before allocating for a dataset: the bytes its dataspace
// declares must be backed by the storage the file holds for it (at most the filters' expansion),
// so that a few bytes of metadata never buy gigabytes of fill values.
#pragma once

#include <cstdint>
#include <string>

namespace portacl::io::detail {

// `dataset` is an open hid_t; `elements` the dataspace's element count. Throws one sentence naming
// `where` when the storage cannot hold them or the host cannot hold `elements` x `memoryElementBytes`.
void checkHdf5Storage(long long dataset, std::uint64_t elements, std::uint64_t memoryElementBytes, const std::string& where);

}  // namespace portacl::io::detail
