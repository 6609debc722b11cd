# Compile settings shared by every mpsfw target.

# Warnings on (and errors) for our own C++ code; CUDA host code gets the warnings
# but not -Werror, because the toolkit's own headers are not warning-clean.
function(mpsfw_set_warnings target)
  set(_cxx_flags -Wall -Wextra -Wpedantic -Wshadow)
  if(MPSFW_WARNINGS_AS_ERRORS)
    list(APPEND _cxx_flags -Werror)
  endif()
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${_cxx_flags}>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
endfunction()

# Our library/executable defaults: C++17, warnings, the CUDA and Kokkos switches as macros,
# and no contraction of a*b+c into FMA on the host, so results do not depend on
# how the compiler vectorises a loop (the N-rank == 1-rank bitwise guarantee).
function(mpsfw_configure_target target)
  mpsfw_set_warnings(${target})
  if(MPSFW_ENABLE_CUDA)
    target_compile_definitions(${target} PUBLIC MPSFW_HAVE_CUDA=1)
  else()
    target_compile_definitions(${target} PUBLIC MPSFW_HAVE_CUDA=0)
  endif()
  if(MPSFW_ENABLE_KOKKOS)
    target_compile_definitions(${target} PUBLIC MPSFW_HAVE_KOKKOS=1)
  else()
    target_compile_definitions(${target} PUBLIC MPSFW_HAVE_KOKKOS=0)
  endif()
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off>)
endfunction()

# A library users may link: the alias mpsfw::<name> in-tree (add_subdirectory)
# and the same name from an installed mpsfw (find_package(mpsfw)).
function(mpsfw_export_library target name)
  add_library(mpsfw::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  set_property(GLOBAL APPEND PROPERTY MPSFW_EXPORTED_TARGETS ${target})
endfunction()
