# For a solver built against mpsfw (find_package(mpsfw) includes this):
#   mpsfw_enable_cuda(<OPTION>)
# declares the option <OPTION> (default: whether mpsfw was built with CUDA)
# and, where it is on, enables CUDA as mpsfw was built: the compiler of the
# toolkit mpsfw was found with (where nvcc is not on PATH), mpsfw's
# architectures (unless CMAKE_CUDA_ARCHITECTURES is given), the shared runtime
# (mpsfw links CUDA::cudart; a static one would be a second) and C++17. On
# with an mpsfw built without CUDA is an error naming both ways out. A macro:
# the CUDA settings belong to the caller's scope.
macro(mpsfw_enable_cuda option)
  option(${option} "Build the CUDA sources (default: as mpsfw was built)" ${mpsfw_CUDA})
  if(${option})
    if(NOT mpsfw_CUDA)
      message(FATAL_ERROR "${option}=ON, but the mpsfw found at ${mpsfw_DIR} was built without "
                          "CUDA; configure with -D${option}=OFF or use an mpsfw built with CUDA")
    endif()
    if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND CUDAToolkit_NVCC_EXECUTABLE)
      set(CMAKE_CUDA_COMPILER ${CUDAToolkit_NVCC_EXECUTABLE})
    endif()
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES ${mpsfw_CUDA_ARCHITECTURES})
    endif()
    set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    enable_language(CUDA)
  endif()
endmacro()

# A solver's parts written once over the backends' primitives
# (<mpsfw/core/particles/backend_part.hpp>), after mpsfw_enable_cuda(<PREFIX>_ENABLE_CUDA):
#   mpsfw_backend_parts(<target> <PREFIX> <source>...)
# compiles each source once per backend the build has: the host; CUDA where
# <PREFIX>_ENABLE_CUDA is on; Kokkos where mpsfw has the Kokkos backend
# (compiled as CUDA with a CUDA Kokkos, linked to mpsfw::mpsfw_kokkos). It
# defines <PREFIX>_HAVE_CUDA and <PREFIX>_HAVE_KOKKOS (1 or 0) for the target
# and its users: what mpsfw::make_part and mpsfw::backends_built are given.
function(mpsfw_backend_parts target prefix)
  set(_backend_names none host cuda kokkos)
  set(_backends 1)
  set(_have_cuda 0)
  set(_have_kokkos 0)
  if(${prefix}_ENABLE_CUDA)
    list(APPEND _backends 2)
    set(_have_cuda 1)
  endif()
  # mpsfw's Kokkos: the package's target, or the tree's own (in-tree parts)
  set(_kokkos "")
  if(TARGET mpsfw::mpsfw_kokkos)
    set(_kokkos mpsfw::mpsfw_kokkos)
  elseif(TARGET mpsfw_kokkos)
    set(_kokkos mpsfw_kokkos)
  endif()
  if(_kokkos)
    list(APPEND _backends 3)
    set(_have_kokkos 1)
    target_link_libraries(${target} PRIVATE ${_kokkos})
    message(STATUS "${target}: built for --backend kokkos")
  endif()
  target_compile_definitions(${target} PUBLIC ${prefix}_HAVE_CUDA=${_have_cuda}
                                              ${prefix}_HAVE_KOKKOS=${_have_kokkos})
  foreach(_source ${ARGN})
    get_filename_component(_path ${_source} ABSOLUTE)
    get_filename_component(_name ${_source} NAME_WE)
    foreach(_backend ${_backends})
      list(GET _backend_names ${_backend} _label)
      set(_part ${CMAKE_CURRENT_BINARY_DIR}/${target}_parts/${_name}_${_label}.cpp)
      if(_backend EQUAL 2)
        set(_part ${CMAKE_CURRENT_BINARY_DIR}/${target}_parts/${_name}_${_label}.cu)
      endif()
      file(CONFIGURE OUTPUT ${_part} CONTENT
           "// ${_source} for the ${_label} backend (mpsfw_backend_parts)\n#define MPSFW_PART_BACKEND ${_backend}\n#include \"${_path}\"\n")
      target_sources(${target} PRIVATE ${_part})
      if(_backend EQUAL 3 AND Kokkos_ENABLE_CUDA)
        set_source_files_properties(${_part} PROPERTIES LANGUAGE CUDA)
      endif()
    endforeach()
  endforeach()
endfunction()
