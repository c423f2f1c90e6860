// Output files are never left half-written: content goes to a temporary file beside the target,
// which is renamed over the target only when everything was written.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace portacl {

// Writes through `write` into "<path>.tmp.<pid>", then renames it to `path`. On any failure (the
// writer throws, the disk is full) the temporary file is removed and portacl::Error says which file.
void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write,
                         bool binary = false);

// The temporary name writeFileAtomically uses, for writers that need a path (HDF5, libpng, libtiff):
// write there, then call commitTemporary(path); on failure call discardTemporary(path).
std::string temporaryPathFor(const std::string& path);
void commitTemporary(const std::string& path);
void discardTemporary(const std::string& path);

}  // namespace portacl
