# `cmake --install`: headers under include/mpsfw/, the libraries, the three
# programs, and a package (mpsfwConfig.cmake + version) exporting the
# libraries as mpsfw::core, mpsfw::mps, mpsfw::heat, mpsfw::md,
# mpsfw::workloads and mpsfw::driver, so that a solver of one's own finds it
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
# mpsfw-mpsctl. In the build tree they keep their short names.
foreach(_program solver mkinput mpsctl)
  install(PROGRAMS $<TARGET_FILE:${_program}> DESTINATION ${CMAKE_INSTALL_BINDIR}
          RENAME mpsfw-${_program})
endforeach()

foreach(_dir core mps solvers apps)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${_dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mpsfw/${_dir}
          FILES_MATCHING PATTERN "*.hpp" PATTERN "*.cuh")
endforeach()

install(EXPORT mpsfwTargets NAMESPACE mpsfw:: DESTINATION ${MPSFW_INSTALL_CMAKEDIR})
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
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/README.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/mpsfw)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/mpsfw
        FILES_MATCHING PATTERN "*.md")
