// The extension module portacl._portacl: the engine, each workload built, and the serial C++
// references in the submodule `reference` (what the tests hold the device results to).
#include "common.hpp"

PYBIND11_MODULE(_portacl, m) {
    using namespace portacl::python;
    m.doc() = "PortaCL's library calls on NumPy arrays (use the package portacl, not this module).";
    py::module_ ref = m.def_submodule("reference", "The serial C++ references of the workloads.");
    bindEngine(m);
    bindVector(m, ref);
#ifdef PORTACL_PY_FILTER
    bindFilter(m, ref);
#endif
#ifdef PORTACL_PY_GEMM
    bindGemm(m, ref);
#endif
#ifdef PORTACL_PY_PREDICATES
    bindPredicates(m, ref);
#endif
#ifdef PORTACL_PY_LINEAL_PATH
    bindLinealPath(m, ref);
#endif
#ifdef PORTACL_PY_VORONOI
    bindVoronoi(m, ref);
#endif
#ifdef PORTACL_PY_SKELETON
    bindSkeleton(m, ref);
#endif
#ifdef PORTACL_PY_BOX_COUNT
    bindBoxCount(m, ref);
#endif
#ifdef PORTACL_PY_DRAINAGE
    bindDrainage(m, ref);
#endif
#ifdef PORTACL_PY_FFT
    bindFft(m, ref);
#endif
#ifdef PORTACL_PY_MESH
    bindMesh(m, ref);
#endif
#ifdef PORTACL_PY_KWAVE
    bindKwave(m, ref);
#endif
}
