# The MPI the core is built with (docs/building.md). The wrapper is chosen the usual ways:
# MPICC, MPI_HOME, or -DMPI_C_COMPILER=. Its headers are checked before FindMPI runs, and
# what FindMPI cached in a configure that failed (or with another wrapper) is dropped, so
# that installing the missing package is enough: no build directory to delete by hand.

if(NOT MPI_C_COMPILER AND DEFINED ENV{MPICC})
  set(MPI_C_COMPILER "$ENV{MPICC}" CACHE FILEPATH "MPI C compiler wrapper")
endif()

set(_HPCP_MPI_HEADER_CHECK "${CMAKE_CURRENT_LIST_DIR}/check-mpi-headers.sh")
# FindMPI's own cache entries: what it asked the wrapper, what it found, whether its test
# program built. It asks the wrapper again only when the first of these are empty.
string(CONCAT _HPCP_FINDMPI_ENTRIES
       "^(MPI_C_(COMPILER_INCLUDE_DIRS|INCLUDE_PATH|ADDITIONAL_INCLUDE_DIRS|COMPILE_OPTIONS|"
       "COMPILE_DEFINITIONS|LINK_FLAGS|LIB_NAMES|HEADER_DIR)|MPI_.+_LIBRARY|MPI_RESULT_C_.+|"
       "MPIEXEC_EXECUTABLE)$")

# One line naming the missing header and its package, instead of FindMPI's page about an
# include directory that does not exist (an MPI's run-time installed without its headers).
function(hpcp_check_mpi_headers)
  if(NOT MPI_C_COMPILER)
    return()
  endif()
  execute_process(COMMAND sh "${_HPCP_MPI_HEADER_CHECK}" "${MPI_C_COMPILER}"
                  RESULT_VARIABLE status ERROR_VARIABLE why ERROR_STRIP_TRAILING_WHITESPACE)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${why}")
  endif()
endfunction()

# The wrapper's path and the compile line it answers (Open MPI's -showme, MPICH's -show):
# another MPI behind the same name (a switched alternative) then counts as another wrapper.
function(hpcp_mpi_wrapper_identity out)
  set(identity "${MPI_C_COMPILER}")
  if(MPI_C_COMPILER)
    foreach(question -showme -show)
      execute_process(COMMAND "${MPI_C_COMPILER}" ${question} RESULT_VARIABLE status
                      OUTPUT_VARIABLE answer ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(status EQUAL 0)
        string(APPEND identity " ${answer}")
        break()
      endif()
    endforeach()
  endif()
  set(${out} "${identity}" PARENT_SCOPE)
endfunction()

# FindMPI never asks the wrapper again once it has cached an answer, so a configure that
# failed would keep failing after the fix (or mix two MPIs after a switch). Unless the
# last attempt found MPI with this same wrapper, the entries it left are dropped; an entry
# changed since (a hint given with -D) is kept. A build directory from before this check
# has no record of its attempt: a failed test program there says it failed.
function(hpcp_forget_failed_findmpi identity)
  if(DEFINED CACHE{_HPCP_FINDMPI_OUTCOME})
    if(_HPCP_FINDMPI_OUTCOME STREQUAL "found with ${identity}")
      return()
    endif()
  elseif(NOT DEFINED CACHE{MPI_RESULT_C_test_mpi_normal} OR MPI_RESULT_C_test_mpi_normal)
    return()
  endif()
  get_cmake_property(cached CACHE_VARIABLES)
  foreach(entry IN LISTS cached)
    if(entry MATCHES "${_HPCP_FINDMPI_ENTRIES}")
      if(NOT DEFINED CACHE{_HPCP_FINDMPI_LEFT_${entry}}
         OR "$CACHE{${entry}}" STREQUAL "$CACHE{_HPCP_FINDMPI_LEFT_${entry}}")
        unset(${entry} CACHE)
      endif()
    endif()
  endforeach()
endfunction()

# What this attempt left, for the next configure to judge.
function(hpcp_remember_findmpi outcome)
  set(_HPCP_FINDMPI_OUTCOME "${outcome}" CACHE INTERNAL "how FindMPI's last attempt ended")
  get_cmake_property(cached CACHE_VARIABLES)
  foreach(entry IN LISTS cached)
    if(entry MATCHES "${_HPCP_FINDMPI_ENTRIES}")
      set(_HPCP_FINDMPI_LEFT_${entry} "$CACHE{${entry}}" CACHE INTERNAL "left by FindMPI")
    endif()
  endforeach()
endfunction()

hpcp_check_mpi_headers()
hpcp_mpi_wrapper_identity(_hpcp_mpi_identity)
hpcp_forget_failed_findmpi("${_hpcp_mpi_identity}")

# The launcher must belong to the same MPI as the wrapper, not whichever
# mpiexec comes first on PATH.
if(MPI_C_COMPILER AND NOT MPIEXEC_EXECUTABLE)
  unset(_hpcp_mpicc CACHE) # the wrapper may have changed since the last configure
  find_program(_hpcp_mpicc NAMES ${MPI_C_COMPILER})
  if(_hpcp_mpicc)
    get_filename_component(_hpcp_mpibin "${_hpcp_mpicc}" DIRECTORY)
    find_program(MPIEXEC_EXECUTABLE NAMES mpiexec mpirun PATHS "${_hpcp_mpibin}" NO_DEFAULT_PATH)
  endif()
endif()

find_package(MPI COMPONENTS C)
if(MPI_C_FOUND)
  hpcp_remember_findmpi("found with ${_hpcp_mpi_identity}")
else()
  hpcp_remember_findmpi("failed")
  message(FATAL_ERROR "no usable MPI for C (MPI_C_COMPILER: ${MPI_C_COMPILER}); FindMPI "
                      "says what it missed above")
endif()
