# Kokkos, the backend users may pick (--backend kokkos, run.backend = "kokkos").
# On when a Kokkos install is found (CMAKE_PREFIX_PATH or Kokkos_ROOT), off
# otherwise; the differences between Kokkos installs are handled here and
# nowhere else. Gives the interface target mpsfw_kokkos (exported with mpsfw).
find_package(Kokkos CONFIG QUIET)
set(_mpsfw_kokkos_default OFF)
if(Kokkos_FOUND)
  set(_mpsfw_kokkos_default ON)
endif()
option(MPSFW_ENABLE_KOKKOS "Build the Kokkos backend (default: on when Kokkos is found)"
       ${_mpsfw_kokkos_default})

# A library's Kokkos source, or its stand-in in a build without Kokkos (which
# says so when called): compiled as CUDA with a CUDA Kokkos, linked against it.
function(mpsfw_kokkos_sources target source off_source)
  if(NOT MPSFW_ENABLE_KOKKOS)
    target_sources(${target} PRIVATE ${off_source})
    return()
  endif()
  target_sources(${target} PRIVATE ${source})
  if(MPSFW_KOKKOS_SOURCES_AS_CUDA)
    set_source_files_properties(${source} PROPERTIES LANGUAGE CUDA)
  endif()
  target_link_libraries(${target} PRIVATE mpsfw_kokkos)
endfunction()

if(NOT MPSFW_ENABLE_KOKKOS)
  message(STATUS "mpsfw: Kokkos backend not built (${Kokkos_DIR}; Kokkos_ROOT=/path/to/kokkos "
                 "or scripts/setup.sh, which installs Debian's libtrilinos-kokkos-dev, turns it on)")
  return()
endif()
if(NOT Kokkos_FOUND)
  message(FATAL_ERROR "mpsfw: MPSFW_ENABLE_KOKKOS=ON but no Kokkos was found "
                      "(set Kokkos_ROOT to its install prefix)")
endif()
if(Kokkos_ENABLE_CUDA AND NOT MPSFW_ENABLE_CUDA)
  message(FATAL_ERROR "mpsfw: this Kokkos (${Kokkos_DIR}) was built with CUDA; "
                      "configure mpsfw with CUDA too (MPSFW_ENABLE_CUDA=ON)")
endif()

add_library(mpsfw_kokkos INTERFACE)
include(${CMAKE_CURRENT_LIST_DIR}/MpsfwKokkosLink.cmake)
mpsfw_kokkos_link(mpsfw_kokkos BUILD_ONLY)
set_property(GLOBAL APPEND PROPERTY MPSFW_EXPORTED_TARGETS mpsfw_kokkos)
# A CUDA Kokkos (built with Kokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE, as
# scripts/build_kokkos_cuda.sh does): mpsfw's Kokkos sources compile as CUDA.
set(MPSFW_KOKKOS_SOURCES_AS_CUDA ${Kokkos_ENABLE_CUDA})
message(STATUS "mpsfw: Kokkos backend built: Kokkos ${Kokkos_VERSION} (${Kokkos_DEVICES}) from ${Kokkos_DIR}")
