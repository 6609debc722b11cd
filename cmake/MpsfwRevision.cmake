# Script mode, run at every build (not only at configure): writes OUT, a C++
# file defining mpsfw::build_revision(), from `git describe` of SOURCE_DIR,
# and touches it only when the revision changed, so an unchanged tree
# recompiles nothing.
execute_process(COMMAND git describe --always --dirty --abbrev=12
                WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE revision OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR revision STREQUAL "")
  set(revision "unknown")
endif()
file(WRITE ${OUT}.new
     "// Generated at build time by cmake/MpsfwRevision.cmake: do not edit.\n"
     "#include \"core/device/build_info.hpp\"\n"
     "const char* mpsfw::build_revision() { return \"${revision}\"; }\n")
file(COPY_FILE ${OUT}.new ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.new)
