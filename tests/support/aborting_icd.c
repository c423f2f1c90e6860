/* An OpenCL runtime that aborts while it is being loaded, as PoCL does when it cannot start its
 * threads: tests/test_runtime_loading.cpp loads it through the ICD loader. */
#include <stdlib.h>

__attribute__((constructor)) static void abortWhileLoading(void) { abort(); }
