// Creation properties for HDF5 objects that record no times. HDF5 stores each object's creation and
// modification times in its header by default, so the same data written twice gave different
// bytes; a batch over devices or ranks promises the one-process run's bytes.
#pragma once

#include <hdf5.h>

namespace portacl::io::detail {

// A new property list of class `cls` (H5P_FILE_CREATE, H5P_GROUP_CREATE, H5P_DATASET_CREATE) whose
// objects record no times; the caller closes it. A negative identifier where HDF5 failed.
inline hid_t untimedCreation(hid_t cls) {
    const hid_t plist = H5Pcreate(cls);
    if (plist >= 0 && H5Pset_obj_track_times(plist, false) < 0) {
        H5Pclose(plist);
        return -1;
    }
    return plist;
}

}  // namespace portacl::io::detail
