// Where the shared data (test inputs, bench structures: the folder holding MANIFEST.md) is found.
// One rule, used by the tests and the bench:
//   1. $PORTACL_DATA_DIR, when set;
//   2. shared/data beside the source tree (<source>/../shared/data), the layout of a development clone;
//   3. shared/data or ../shared/data from the working directory.
#pragma once

#include "portacl/export.hpp"

#include <string>

namespace portacl {

// The data folder by the rule above, or "" when none of the places holds it.
PORTACL_API std::string dataDirectory();

// One sentence for when the data is missing: where it was looked for and where to put it.
PORTACL_API std::string dataDirectoryHint();

}  // namespace portacl
