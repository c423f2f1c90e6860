# Source this file (". scripts/opencl-env.sh") to make every OpenCL implementation that
# scripts/install-deps.sh installs visible to the ICD loader in this shell:
#  - Mesa's rusticl shows its llvmpipe CPU device only with RUSTICL_ENABLE=llvmpipe (left unset by
#    default because initialising llvmpipe adds about 2 s to every OpenCL program's start);
#  - Intel's CPU runtime and PoCL need nothing (their .icd files are in /etc/OpenCL/vendors);
#  - oclgrind stays opt-in: run a command under `oclgrind` (docs/portability.md).
export RUSTICL_ENABLE="${RUSTICL_ENABLE:-llvmpipe}"
if [ ! -f /etc/OpenCL/vendors/intel-cpu.icd ]; then
  echo "opencl-env: Intel's OpenCL CPU runtime is not registered (run scripts/install-deps.sh as root)" >&2
fi
