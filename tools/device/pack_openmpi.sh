#!/usr/bin/env bash
# Carries this machine's OpenMPI (Debian's openmpi-bin 4.1 with its external PMIx) to a machine
# that has none, such as the GPU machines: the launcher, its daemon, the component plugins, PMIx,
# the help texts and every library they load, relocated under one folder.
#
#   tools/device/pack_openmpi.sh .device/openmpi        # after ../shared/device/pack ...
#   there:  source .device/openmpi/env.sh && mpirun --allow-run-as-root -n 2 portacl ...
#
# OpenMPI finds a relocated installation through OPAL_PREFIX and the OPAL_*DIR variables, PMIx its
# through PMIX_PREFIX and the PMIX_*DIR variables; env.sh sets them relative to where it lies.
set -euo pipefail
dest=${1:?usage: $0 DEST_FOLDER}
lib=/usr/lib/x86_64-linux-gnu
[ -x /usr/bin/orterun ] || { echo "pack_openmpi: OpenMPI's orterun is not installed (openmpi-bin)" >&2; exit 2; }
rm -rf "$dest" && mkdir -p "$dest/bin" "$dest/lib" "$dest/share" "$dest/etc"
cp -L /usr/bin/orterun "$dest/bin/mpirun"
cp -L /usr/bin/orted "$dest/bin/orted"
cp -rL "$lib/openmpi/lib/openmpi3" "$dest/lib/openmpi3"
cp -rL "$lib/pmix2/lib/pmix" "$dest/lib/pmix"
cp -r /usr/share/openmpi "$dest/share/openmpi"
cp -r "$lib/pmix2/share/pmix" "$dest/share/pmix"
cp /etc/openmpi/openmpi-mca-params.conf /etc/openmpi/openmpi-default-hostfile "$dest/etc/"
# Every library the programs and plugins load, but glibc and the C++ runtime (the machine's own).
skip='^(linux-vdso|ld-linux|libc\.|libm\.|libpthread|libdl\.|librt\.|libresolv|libstdc\+\+|libgcc_s)'
find "$dest/bin" "$dest/lib" -type f \( -name '*.so*' -o -perm -u+x \) -print0 |
  xargs -0 -n1 ldd 2>/dev/null | awk '$3 ~ /^\// {print $1, $3}' | sort -u |
  while read -r name path; do
    [[ $name =~ $skip ]] || cp -nL "$path" "$dest/lib/$name"
  done
cat > "$dest/env.sh" <<'ENV'
# Source this to use the carried OpenMPI.
p=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export OPAL_PREFIX=$p OPAL_EXEC_PREFIX=$p OPAL_BINDIR=$p/bin OPAL_LIBDIR=$p/lib OPAL_PKGLIBDIR=$p/lib/openmpi3
export OPAL_DATAROOTDIR=$p/share OPAL_DATADIR=$p/share OPAL_PKGDATADIR=$p/share/openmpi OPAL_SYSCONFDIR=$p/etc
export PMIX_PREFIX=$p PMIX_EXEC_PREFIX=$p PMIX_LIBDIR=$p/lib PMIX_PKGLIBDIR=$p/lib/pmix PMIX_DATADIR=$p/share
export PMIX_DATAROOTDIR=$p/share PMIX_PKGDATADIR=$p/share/pmix PMIX_SYSCONFDIR=$p/etc PMIX_MCA_mca_base_component_path=$p/lib/pmix
export PATH=$p/bin:$PATH LD_LIBRARY_PATH=$p/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# hwloc's OpenCL and GL plugins would open every OpenCL driver in every rank; the engine asks OpenCL itself.
export HWLOC_COMPONENTS=-opencl,-gl
export OMPI_MCA_plm_rsh_agent=false OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ENV
du -sh "$dest" | awk '{print "pack_openmpi: " $2 " holds " $1}'
