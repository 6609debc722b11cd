# The API of mpsfw: the headers a solver of one's own includes (the examples,
# docs/framework.md). `cmake --install` puts these under include/mpsfw/ with
# every header they include, and no other: a header only the libraries'
# sources include (md_arrays_store.hpp, the MPS daemon control, the runtime's
# own parts) stays out of the package. Headers installed only because these
# include them are details that may change with any version.
set(MPSFW_PUBLIC_HEADERS
    # the runtime: main and a program of one's own
    runtime/solver_main.hpp runtime/session.hpp solvers/builtin_workloads.hpp
    # a workload: its keys, configuration, time loop and report
    core/driver/workload.hpp core/driver/time_loop.hpp core/driver/report.hpp
    core/input/params.hpp core/input/run_config.hpp core/base/error.hpp
    core/base/number_text.hpp core/base/backend.hpp core/base/hd.hpp
    core/parallel/mpi_check.hpp core/parallel/collective.hpp core/parallel/mpi_env.hpp
    core/parallel/string_gather.hpp core/parallel/wait_policy.hpp
    core/device/device.hpp core/device/backend_factory.hpp core/device/timers.hpp
    core/device/memory.hpp core/device/peer_memory.hpp core/device/kokkos_launch.hpp
    core/mesh/box.hpp core/mesh/decomposition.hpp core/mesh/field_layout.hpp
    # grid solvers
    core/driver/grid_workload.hpp core/driver/grid_solver.hpp core/input/grid_keys.hpp
    core/grid/grid_loops.hpp core/grid/grid_state.hpp core/grid/grid_fields.hpp
    core/comm/field_halos.hpp
    # particle solvers
    core/particles/particle_store.hpp core/particles/particle_arrays.hpp
    core/particles/particle_exchange.hpp core/particles/particle_files.hpp
    core/particles/particle_input.hpp core/particles/particle_compare.hpp
    core/particles/neighbour_schedule.hpp core/particles/neighbour_walk.hpp
    core/particles/subdomain.hpp core/particles/backend_part.hpp
    core/particles/pair_shares.hpp core/particles/written_field.hpp
    core/particles/field_spec.hpp core/particles/ghost_lists.hpp
    core/particles/kokkos_exec.hpp
    # the built-in heat solver's configuration (a program that runs heat itself)
    solvers/heat/heat_config.hpp)

# `out`: the headers of `entries` and every header they include, directly or
# not (<mpsfw/...> and "beside.hpp"), as paths under the source root.
function(mpsfw_header_closure out)
  set(_todo ${ARGN})
  set(_seen "")
  while(_todo)
    list(POP_FRONT _todo _header)
    if(_header IN_LIST _seen)
      continue()
    endif()
    if(NOT EXISTS ${PROJECT_SOURCE_DIR}/${_header})
      message(FATAL_ERROR "mpsfw: ${_header} (an API header or one it includes) does not exist")
    endif()
    list(APPEND _seen ${_header})
    get_filename_component(_dir ${_header} DIRECTORY)
    file(STRINGS ${PROJECT_SOURCE_DIR}/${_header} _lines REGEX "^#include [<\"]")
    foreach(_line IN LISTS _lines)
      if(_line MATCHES "^#include <mpsfw/([^>]+)>")
        list(APPEND _todo ${CMAKE_MATCH_1})
      elseif(_line MATCHES "^#include \"([^\"]+)\"")
        list(APPEND _todo ${_dir}/${CMAKE_MATCH_1})
      endif()
    endforeach()
  endwhile()
  set(${out} ${_seen} PARENT_SCOPE)
endfunction()
