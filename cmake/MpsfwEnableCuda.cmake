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
