# `cmake --install`: headers under include/mpsfw/, the libraries, the three
# programs, and a package (mpsfwConfig.cmake + version) exporting the
# libraries as mpsfw::core, mpsfw::mps, mpsfw::heat, mpsfw::md,
# mpsfw::workloads and mpsfw::runtime, so that a solver of one's own finds it
# with find_package(mpsfw).
include(CMakePackageConfigHelpers)

set(MPSFW_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/mpsfw CACHE STRING
    "Where mpsfwConfig.cmake is installed, under the prefix")

get_property(_mpsfw_exported GLOBAL PROPERTY MPSFW_EXPORTED_TARGETS)
install(TARGETS ${_mpsfw_exported} EXPORT mpsfwTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# Installed under names that cannot clash on a shared PATH (a module system
# puts many packages' bin/ together): mpsfw-solver, mpsfw-mkinput,
# mpsfw-mpsctl, mpsfw-run. In the build tree they keep their short names.
foreach(_program solver mkinput mpsctl run)
  install(PROGRAMS $<TARGET_FILE:${_program}> DESTINATION ${CMAKE_INSTALL_BINDIR}
          RENAME mpsfw-${_program})
endforeach()

foreach(_dir core mps runtime solvers)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${_dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mpsfw/${_dir}
          FILES_MATCHING PATTERN "*.hpp" PATTERN "*.cuh")
endforeach()

install(EXPORT mpsfwTargets NAMESPACE mpsfw:: DESTINATION ${MPSFW_INSTALL_CMAKEDIR})
set(_mpsfw_docdir ${CMAKE_INSTALL_DATADIR}/doc/mpsfw)  # (the config names it too)
set(_mpsfw_shared OFF)
if(BUILD_SHARED_LIBS)
  set(_mpsfw_shared ON)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/mpsfwConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/mpsfwConfig.cmake
                              INSTALL_DESTINATION ${MPSFW_INSTALL_CMAKEDIR})
# 0.x: a minor version may change the interface.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mpsfwConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mpsfwConfig.cmake ${PROJECT_BINARY_DIR}/mpsfwConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/MpsfwEnableCuda.cmake
        DESTINATION ${MPSFW_INSTALL_CMAKEDIR})
# The documentation: README.md and docs/ share one folder, share/doc/mpsfw
# (--help finds input-format.md there), with the job scripts and examples
# the guides link to in slurm/ and examples/ beside them. So the pages'
# links are rewritten from the source tree's layout to that one: the guides'
# ../x becomes x, and every other page's docs/x (after any ../) becomes x.
# docs/archive (the performance journal) stays in the source tree.
file(GLOB _mpsfw_guides CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
file(GLOB_RECURSE _mpsfw_pages CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/slurm/*.md
     ${PROJECT_SOURCE_DIR}/examples/*.md)
foreach(_page ${PROJECT_SOURCE_DIR}/README.md ${_mpsfw_pages} ${_mpsfw_guides})
  file(READ ${_page} _text)
  file(RELATIVE_PATH _installed ${PROJECT_SOURCE_DIR} ${_page})
  if(_page IN_LIST _mpsfw_guides)
    string(REPLACE "](../" "](" _text "${_text}")
    get_filename_component(_installed ${_page} NAME)
  else()
    string(REGEX REPLACE "\\]\\(((\\.\\./)*)docs/" "](\\1" _text "${_text}")
  endif()
  file(WRITE ${PROJECT_BINARY_DIR}/doc/${_installed} "${_text}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_page})
  get_filename_component(_subdir ${_installed} DIRECTORY)
  install(FILES ${PROJECT_BINARY_DIR}/doc/${_installed} DESTINATION ${_mpsfw_docdir}/${_subdir})
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/CITATION.cff DESTINATION ${_mpsfw_docdir})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${_mpsfw_docdir}
        PATTERN archive EXCLUDE REGEX "/docs/[^/]+\\.md$" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/slurm ${PROJECT_SOURCE_DIR}/examples DESTINATION ${_mpsfw_docdir}
        USE_SOURCE_PERMISSIONS PATTERN "*.md" EXCLUDE)
