# `cmake --install`: the API's headers under include/mpsfw/
# (MpsfwPublicHeaders.cmake), the libraries, the three
# programs, and a package (mpsfwConfig.cmake + version) exporting the
# libraries as mpsfw::core, mpsfw::mps, mpsfw::heat, mpsfw::md,
# mpsfw::workloads and mpsfw::runtime, so that a solver of one's own finds it
# with find_package(mpsfw).
include(CMakePackageConfigHelpers)

set(MPSFW_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/mpsfw CACHE STRING
    "Where mpsfwConfig.cmake is installed, under the prefix")

get_property(_mpsfw_exported GLOBAL PROPERTY MPSFW_EXPORTED_TARGETS)
# Shared libraries carry the version: libmpsfw_core.so.0.1.0, soname
# libmpsfw_core.so.0.1 (0.x: a minor version may change the interface).
foreach(_target IN LISTS _mpsfw_exported)
  get_target_property(_type ${_target} TYPE)
  if(NOT _type STREQUAL "INTERFACE_LIBRARY")
    set_target_properties(${_target} PROPERTIES VERSION ${PROJECT_VERSION}
                          SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  endif()
endforeach()
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

include(${CMAKE_CURRENT_LIST_DIR}/MpsfwPublicHeaders.cmake)
mpsfw_header_closure(_mpsfw_headers ${MPSFW_PUBLIC_HEADERS})
foreach(_header IN LISTS _mpsfw_headers)
  get_filename_component(_dir ${_header} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${_header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mpsfw/${_dir})
  # An include added to one of them changes what is installed.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${_header})
endforeach()

install(EXPORT mpsfwTargets NAMESPACE mpsfw:: DESTINATION ${MPSFW_INSTALL_CMAKEDIR})
set(_mpsfw_docdir ${MPSFW_INSTALL_SHAREDIR}/docs)  # (the config names it too)
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
              ${PROJECT_SOURCE_DIR}/cmake/MpsfwEnableCuda.cmake ${PROJECT_SOURCE_DIR}/cmake/MpsfwKokkosLink.cmake
        DESTINATION ${MPSFW_INSTALL_CMAKEDIR})
# share/mpsfw as the repository has them: README.md, docs/ (not docs/archive,
# the performance journal), the Python tools of scripts/ (advise, sweep and
# what they import, timeline_summary, compare_md_checkpoints; they find the
# installed programs), slurm/, inputs/ and examples/. share/doc/mpsfw points
# there, where distributions look for a package's documentation.
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE
              ${PROJECT_SOURCE_DIR}/CITATION.cff DESTINATION ${MPSFW_INSTALL_SHAREDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs DESTINATION ${MPSFW_INSTALL_SHAREDIR} PATTERN archive EXCLUDE)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/advise.py ${PROJECT_SOURCE_DIR}/scripts/sweep.py
                 ${PROJECT_SOURCE_DIR}/scripts/timeline_summary.py
                 ${PROJECT_SOURCE_DIR}/scripts/compare_md_checkpoints.py
                 ${PROJECT_SOURCE_DIR}/scripts/speedup_gpus.py
        DESTINATION ${MPSFW_INSTALL_SHAREDIR}/scripts)
install(FILES ${PROJECT_SOURCE_DIR}/scripts/advise_choice.py ${PROJECT_SOURCE_DIR}/scripts/command_point.py
              ${PROJECT_SOURCE_DIR}/scripts/run_session.py ${PROJECT_SOURCE_DIR}/scripts/sweep_plot.py
              DESTINATION ${MPSFW_INSTALL_SHAREDIR}/scripts)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/slurm ${PROJECT_SOURCE_DIR}/inputs ${PROJECT_SOURCE_DIR}/examples
        DESTINATION ${MPSFW_INSTALL_SHAREDIR} USE_SOURCE_PERMISSIONS)
install(CODE "file(MAKE_DIRECTORY \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/doc\")
file(CREATE_LINK ../mpsfw \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/doc/mpsfw\" SYMBOLIC)")
