# The parts libportacl is made of. Each part is an object library of its own (its sources, include
# directories and dependencies) whose objects go into libportacl; a workload's part is made only when
# its option is on, and a shared part (HDF5 files, the FFT, volumes, molecules) only when a workload
# asks for it, so that its dependency is looked for only then.
#
#   portacl_workload(<name> [NEEDS <part>...] [COMMANDS <apps/portacl file>...])
#     host/<name>/*.cpp into libportacl, host/<name>/*_bench.cpp into the bench cases, the commands
#     into the CLI. Parts a workload may need: hdf5, fft, volume, molecule, raster, or another workload
#     (declared before it), and cgal (CGAL's headers, for the workload's own sources).
#
# What they collect: PORTACL_BENCH_SOURCES, PORTACL_COMMAND_SOURCES (for the CLI and the tests),
# PORTACL_ENABLED_PARTS (every part made, workloads and shared ones).

set(PORTACL_BENCH_SOURCES "")
set(PORTACL_COMMAND_SOURCES "")
set(PORTACL_ENABLED_PARTS "")

# An object library whose objects and dependencies go into libportacl.
function(portacl_part name)
  cmake_parse_arguments(P "" "" "SOURCES;LINK;INCLUDE;DEFINE" ${ARGN})
  add_library(portacl_${name} OBJECT ${P_SOURCES})
  target_include_directories(portacl_${name} PRIVATE ${PROJECT_SOURCE_DIR}/host ${PROJECT_SOURCE_DIR}/cl ${P_INCLUDE})
  target_compile_definitions(portacl_${name} PRIVATE ${P_DEFINE})
  target_link_libraries(portacl_${name} PRIVATE portacl_runtime ${P_LINK})
  target_compile_options(portacl_${name} PRIVATE ${PORTACL_WARNINGS})
  portacl_hide_symbols(portacl_${name})
  target_sources(portacl PRIVATE $<TARGET_OBJECTS:portacl_${name}>)
  target_link_libraries(portacl PRIVATE ${P_LINK})
  set(PORTACL_ENABLED_PARTS ${PORTACL_ENABLED_PARTS} ${name} PARENT_SCOPE)
endfunction()

# The shared parts, made on first request. Macros: find_package's variables (HDF5_INCLUDE_DIRS, ...)
# stay visible to the tests and the fuzzers.
macro(portacl_need part)
  if(NOT "${part}" IN_LIST PORTACL_ENABLED_PARTS)
    if("${part}" STREQUAL "hdf5")
      find_package(HDF5 REQUIRED COMPONENTS C)
      portacl_part(hdf5 SOURCES ${PROJECT_SOURCE_DIR}/host/io/hdf5_file.cpp
                   LINK ${HDF5_C_LIBRARIES} INCLUDE ${HDF5_INCLUDE_DIRS} DEFINE ${HDF5_DEFINITIONS})
    elseif("${part}" STREQUAL "fft")
      find_package(clFFT CONFIG REQUIRED)
      find_path(VKFFT_INCLUDE_DIR vkFFT.h REQUIRED)
      file(GLOB _sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/host/fft/*.cpp")
      list(FILTER _sources EXCLUDE REGEX "_bench\\.cpp$")
      # FFTW (libfftw3-dev, float and double, threaded): the CPU devices' backend, built when found.
      find_package(PkgConfig QUIET)
      if(PkgConfig_FOUND)
        pkg_check_modules(FFTW3 QUIET fftw3 fftw3f)
      endif()
      option(PORTACL_WITH_FFTW "FFTW as the FFT backend of CPU devices (needs libfftw3-dev)" ${FFTW3_FOUND})
      set(_fft_link clFFT)
      set(_fft_define VKFFT_BACKEND=3)
      if(PORTACL_WITH_FFTW)
        if(NOT FFTW3_FOUND)
          message(FATAL_ERROR "PORTACL_WITH_FFTW is on, but pkg-config finds no fftw3 and fftw3f (libfftw3-dev)")
        endif()
        find_library(FFTW3F_THREADS_LIBRARY fftw3f_threads HINTS ${FFTW3_LIBRARY_DIRS} REQUIRED)
        find_library(FFTW3_THREADS_LIBRARY fftw3_threads HINTS ${FFTW3_LIBRARY_DIRS} REQUIRED)
        list(APPEND _fft_link ${FFTW3F_THREADS_LIBRARY} ${FFTW3_THREADS_LIBRARY} ${FFTW3_LINK_LIBRARIES})
        list(APPEND _fft_define PORTACL_HAVE_FFTW)
      else()
        list(FILTER _sources EXCLUDE REGEX "fftw_plan\\.cpp$")
      endif()
      portacl_part(fft SOURCES ${_sources} LINK ${_fft_link} INCLUDE ${VKFFT_INCLUDE_DIR} ${FFTW3_INCLUDE_DIRS} DEFINE ${_fft_define})
      list(APPEND PORTACL_BENCH_SOURCES "${PROJECT_SOURCE_DIR}/host/fft/fft_bench.cpp")
    elseif("${part}" STREQUAL "volume")
      portacl_need(hdf5)
      # NIfTI-1 and -2 through the NIfTI reference library (libnifti2-dev).
      find_path(NIFTI_INCLUDE_DIR nifti2_io.h PATH_SUFFIXES nifti REQUIRED)
      find_library(NIFTI2_LIBRARY nifti2 REQUIRED)
      file(GLOB _sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/host/io/volume_io*.cpp"
           "${PROJECT_SOURCE_DIR}/host/io/binary_volume.cpp")
      portacl_part(volume SOURCES ${_sources} LINK ${HDF5_C_LIBRARIES} TIFF::TIFF ZLIB::ZLIB ${NIFTI2_LIBRARY}
                   INCLUDE ${HDF5_INCLUDE_DIRS} ${NIFTI_INCLUDE_DIR} DEFINE ${HDF5_DEFINITIONS})
    elseif("${part}" STREQUAL "raster")
      # Georeferenced rasters (DEMs, pointer grids) through GDAL (libgdal-dev).
      find_package(GDAL REQUIRED)
      portacl_part(raster SOURCES ${PROJECT_SOURCE_DIR}/host/io/raster_io.cpp ${PROJECT_SOURCE_DIR}/host/io/vector_io.cpp LINK GDAL::GDAL)
    elseif("${part}" STREQUAL "cgal")
      # CGAL (libcgal-dev, header-only over GMP and MPFR): a workload that names it compiles against it.
      find_package(CGAL REQUIRED)
      # With TBB (libtbb-dev), CGAL's peer can also run on every core. Off by default: Debian's TBB
      # loaded into the process keeps Intel's OpenCL CPU runtime (which brings its own TBB) from loading.
      option(PORTACL_CGAL_WITH_TBB "CGAL's peer over TBB (hides Intel's OpenCL CPU runtime)" OFF)
      set(PORTACL_CGAL_LINK CGAL::CGAL)
      if(PORTACL_CGAL_WITH_TBB)
        find_package(TBB QUIET)
        include(CGAL_TBB_support)
        if(TARGET CGAL::TBB_support)
          list(APPEND PORTACL_CGAL_LINK CGAL::TBB_support)
        endif()
      endif()
      set(PORTACL_ENABLED_PARTS ${PORTACL_ENABLED_PARTS} cgal)
    elseif("${part}" STREQUAL "molecule")
      find_path(GEMMI_INCLUDE_DIR gemmi/mmread.hpp REQUIRED)
      file(GLOB _sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/host/io/molecule_io*.cpp")
      # Trajectories (DCD, XTC, TRR) through chemfiles' C library, opened at run time from this path
      # (where scripts/install-deps.sh puts the chemfiles wheel), $PORTACL_CHEMFILES, or the loader's.
      set(_chemfiles_prefix /opt/portacl/chemfiles)
      if(DEFINED ENV{PORTACL_CHEMFILES_PREFIX})
        set(_chemfiles_prefix $ENV{PORTACL_CHEMFILES_PREFIX})
      endif()
      set(PORTACL_CHEMFILES_LIBRARY "${_chemfiles_prefix}/chemfiles/libchemfiles.so" CACHE FILEPATH
          "chemfiles' libchemfiles.so, loaded at run time to read trajectories")
      portacl_part(molecule SOURCES ${_sources} INCLUDE ${GEMMI_INCLUDE_DIR} LINK ${CMAKE_DL_LIBS}
                   DEFINE PORTACL_CHEMFILES_LIBRARY="${PORTACL_CHEMFILES_LIBRARY}")
    elseif("${part}" IN_LIST PORTACL_WORKLOADS)
      message(FATAL_ERROR "a workload that is on needs ${part}: turn it on too, or the other off")
    else()
      message(FATAL_ERROR "portacl_need: no part '${part}'")
    endif()
  endif()
endmacro()

macro(portacl_workload name)
  cmake_parse_arguments(W "" "" "NEEDS;COMMANDS" ${ARGN})
  foreach(_need IN LISTS W_NEEDS)
    portacl_need(${_need})
  endforeach()
  file(GLOB _sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/host/${name}/*.cpp")
  file(GLOB _bench CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/host/${name}/*_bench.cpp")
  if(_bench)
    list(REMOVE_ITEM _sources ${_bench})
  endif()
  # A workload that reads or writes HDF5 files itself (hdf5.h) compiles against the library.
  if("hdf5" IN_LIST W_NEEDS OR "volume" IN_LIST W_NEEDS)
    portacl_part(${name} SOURCES ${_sources} INCLUDE ${HDF5_INCLUDE_DIRS} DEFINE ${HDF5_DEFINITIONS})
  elseif("cgal" IN_LIST W_NEEDS)
    portacl_part(${name} SOURCES ${_sources} LINK ${PORTACL_CGAL_LINK})
  else()
    portacl_part(${name} SOURCES ${_sources})
  endif()
  list(APPEND PORTACL_BENCH_SOURCES ${_bench})
  foreach(_command IN LISTS W_COMMANDS)
    list(APPEND PORTACL_COMMAND_SOURCES "${PROJECT_SOURCE_DIR}/apps/portacl/${_command}")
  endforeach()
endmacro()
