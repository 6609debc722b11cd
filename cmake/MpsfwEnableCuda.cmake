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

# A solver's backend sources, after mpsfw_enable_cuda(<PREFIX>_ENABLE_CUDA):
#   mpsfw_backend_sources(<target> <PREFIX> CUDA <file.cu> <stand-in.cpp>
#                         [KOKKOS <file.cpp> <stand-in.cpp>])
# adds the CUDA file where <PREFIX>_ENABLE_CUDA is on and the Kokkos file where
# mpsfw has the Kokkos backend (compiled as CUDA with a CUDA Kokkos, linked to
# mpsfw::mpsfw_kokkos), each one's stand-in (a maker that says why there is
# none) otherwise, and defines <PREFIX>_HAVE_CUDA and <PREFIX>_HAVE_KOKKOS
# (1 or 0) for the target and its users.
function(mpsfw_backend_sources target prefix)
  cmake_parse_arguments(ARG "" "" "CUDA;KOKKOS" ${ARGN})
  list(GET ARG_CUDA 0 _cuda_on)
  list(GET ARG_CUDA 1 _cuda_off)
  if(${prefix}_ENABLE_CUDA)
    target_sources(${target} PRIVATE ${_cuda_on})
    target_compile_definitions(${target} PUBLIC ${prefix}_HAVE_CUDA=1)
  else()
    target_sources(${target} PRIVATE ${_cuda_off})
    target_compile_definitions(${target} PUBLIC ${prefix}_HAVE_CUDA=0)
  endif()
  if(NOT ARG_KOKKOS)
    target_compile_definitions(${target} PUBLIC ${prefix}_HAVE_KOKKOS=0)
    return()
  endif()
  list(GET ARG_KOKKOS 0 _kokkos_on)
  list(GET ARG_KOKKOS 1 _kokkos_off)
  if(mpsfw_KOKKOS)
    target_sources(${target} PRIVATE ${_kokkos_on})
    if(Kokkos_ENABLE_CUDA)
      set_source_files_properties(${_kokkos_on} PROPERTIES LANGUAGE CUDA)
    endif()
    target_link_libraries(${target} PRIVATE mpsfw::mpsfw_kokkos)
    target_compile_definitions(${target} PUBLIC ${prefix}_HAVE_KOKKOS=1)
    message(STATUS "${target}: built for --backend kokkos")
  else()
    target_sources(${target} PRIVATE ${_kokkos_off})
    target_compile_definitions(${target} PUBLIC ${prefix}_HAVE_KOKKOS=0)
  endif()
endfunction()
