// portacl-compile-worker: compiles one OpenCL program in its own process for the engine
// (include/portacl/isolated_build.hpp), so that a vendor compiler's crash or hang is contained.
#include "portacl/runtime/isolated_build.hpp"

int main(int argc, char** argv) { return portacl::compileWorkerMain(argc, argv); }
