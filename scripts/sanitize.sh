#!/usr/bin/env bash
# The quick test set under AddressSanitizer + UndefinedBehaviorSanitizer (and LeakSanitizer), in its
# own build folder (scripts/sanitize_build.sh): the library, the command line and the quick suites
# only, so that CI stays short. Any report from the project's code fails the run; the suppressions
# name the libraries whose own leaks and mismatches are not ours (scripts/sanitizer/).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PORTACL_SANITIZE_BUILD:-build-sanitize}
# The quick set: every parser (images, volumes, NIfTI, molecules, rasters, HDF5 outputs and targets,
# k-Wave inputs, profiles, options), the command line's refusals, the runtime's queue and teardown,
# small kernels, the FFT (its plans and transforms, without the 3-D batches and the bench pair, which take most
# of the set's time unoptimised). An entry SUITE=FILTER runs that suite's tests matching FILTER only.
quick=(test_hostile_input test_image_io test_volume_nifti test_voronoi_input "test_drainage=DrainageRasters.*:DrainageBadInput.*"
       "test_cli_conventions=-CliBench.*" test_runtime test_runtime_queue test_lineal_path_io test_voronoi_hdf5
       test_vector_gemm "test_gemm_3xtf32=Tf32.*:Gemm3xTf32Reference.*"
       "test_fft=-FftwBackend.BatchesItemByItemAndAsOnePlanTransformRight:FftBenchPair.*:*3DBatched*")
suites=()
for q in "${quick[@]}"; do suites+=("${q%%=*}"); done
start=$(date +%s)
[ "${PORTACL_SANITIZE_SKIP_BUILD:-0}" = 1 ] || bash scripts/sanitize_build.sh portacl portacl_cli "${suites[@]}"
built=$(date +%s)

supp="$PWD/scripts/sanitizer"
# The ICD loader loads only PoCL, the suites' device: the other CPU runtimes' own allocations (Intel's
# leaves some in libraries it unloads, where no suppression can name them) are not the project's.
mkdir -p "$build/icd-vendors"
cp /etc/OpenCL/vendors/pocl*.icd "$build/icd-vendors/"
export OCL_ICD_VENDORS="$(cd "$build/icd-vendors" && pwd)"
export PORTACL_NO_PROGRESS=1
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:detect_odr_violation=0:allocator_may_return_null=1"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp"
# PoCL compiles kernels in-process with LLVM; its caches are reused between suites.
reports=0
log="$build/sanitize.log"
: >"$log"
for q in "${quick[@]}"; do
  t=${q%%=*} filter='*'
  [ "$q" != "$t" ] && filter=${q#*=}
  opts="$ASAN_OPTIONS"
  # clFFT's own new/delete type mismatch (inside libclFFT's plan and tear-down code, reached from
  # host/fft/clfft_plan.cpp): the one named exception, for the suites that plan with clFFT.
  [ "$t" = test_fft ] && opts="$opts:new_delete_type_mismatch=0"
  if ! ASAN_OPTIONS="$opts" "$build/tests/$t" --gtest_brief=1 --gtest_filter="$filter" >>"$log" 2>&1; then
    echo "sanitize: $t failed (see $log)"
    reports=$((reports + 1))
  fi
done
count=$(grep -cE "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:" "$log" || true)
echo "sanitize: ${#quick[@]} suites, $count sanitizer reports, $reports failing suites; build $((built - start)) s, run $(($(date +%s) - built)) s"
[ "$count" = 0 ] && [ "$reports" = 0 ]
