# The Python environment the package is built in and installed into (docs/building.md):
# which MPI the build uses, and where the installed hpcprobe-bench finds its libraries and
# its launcher. An isolated build (`python -m build`, pip installing the sdist) compiles
# in a temporary environment, so nothing installed may point into the build's copies of
# PyPI's MPICH or scipy-openblas32: they are found relative to the binary instead.

# HPCP_PYPI_MPICC (PyPI's MPICH wrapper the build's Python has, or ""), and the relative
# paths from the scripts directory HPCP_SCRIPTS_TO_PREFIX and HPCP_SCRIPTS_TO_PLATLIB.
function(hpcp_query_python_env)
  set(_mpicc "")
  set(_prefix "..")
  set(_platlib "")
  if(Python_EXECUTABLE)
    execute_process(COMMAND "${Python_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/cmake/hpcp_python_env.py"
                    OUTPUT_VARIABLE _json RESULT_VARIABLE _rc ERROR_QUIET)
    if(_rc EQUAL 0)
      string(JSON _mpicc GET "${_json}" pypi_mpicc)
      string(JSON _prefix GET "${_json}" scripts_to_prefix)
      string(JSON _platlib GET "${_json}" scripts_to_platlib)
    endif()
  endif()
  set(HPCP_PYPI_MPICC "${_mpicc}" PARENT_SCOPE)
  set(HPCP_SCRIPTS_TO_PREFIX "${_prefix}" PARENT_SCOPE)
  set(HPCP_SCRIPTS_TO_PLATLIB "${_platlib}" PARENT_SCOPE)
endfunction()

# MPI_C_COMPILER, when the configure line did not give one: HPCPROBE_MPICC (the
# packaging's variable, which also keeps MPICH out of an isolated build's requirements),
# else MPICC (left to cmake/hpcp_mpi.cmake), else PyPI's MPICH of the build's Python;
# else FindMPI searches as usual.
function(hpcp_choose_mpicc)
  if(MPI_C_COMPILER OR (NOT "$ENV{MPICC}" STREQUAL "" AND "$ENV{HPCPROBE_MPICC}" STREQUAL ""))
    return()
  endif()
  if(NOT "$ENV{HPCPROBE_MPICC}" STREQUAL "")
    unset(_hpcp_site_mpicc CACHE) # NO_CACHE needs CMake 3.21
    find_program(_hpcp_site_mpicc NAMES "$ENV{HPCPROBE_MPICC}")
    if(NOT _hpcp_site_mpicc)
      message(FATAL_ERROR "hpcprobe: HPCPROBE_MPICC=$ENV{HPCPROBE_MPICC} is not an MPI C "
              "compiler wrapper on this machine; set it to the site MPI's mpicc "
              "(e.g. /usr/bin/mpicc), or unset it to build with PyPI's MPICH")
    endif()
    set(_chosen "${_hpcp_site_mpicc}")
  elseif(HPCP_PYPI_MPICC)
    set(_chosen "${HPCP_PYPI_MPICC}")
  else()
    return()
  endif()
  set(MPI_C_COMPILER "${_chosen}" CACHE FILEPATH "MPI C compiler wrapper")
endfunction()

# MPICH's wrapper links with an RPATH to its own lib directory, which in an isolated build
# is the temporary environment's: dropped from MPI::MPI_C's link options, as the install
# RPATH (hpcp_set_install_rpath) names that directory relative to the binary.
function(_hpcp_drop_wrapper_rpath pypi_lib)
  get_target_property(_options MPI::MPI_C INTERFACE_LINK_OPTIONS)
  if(NOT _options)
    return()
  endif()
  set(_rpath_flag "-Wl\\$<COMMA>-rpath -Wl\\$<COMMA>")
  string(REGEX MATCHALL "${_rpath_flag}[^ >]+" _flags "${_options}")
  foreach(_flag IN LISTS _flags)
    string(REGEX REPLACE "^${_rpath_flag}" "" _dir "${_flag}")
    file(REAL_PATH "${_dir}" _real)
    if(_real STREQUAL "${pypi_lib}")
      string(REPLACE "${_flag}" "" _options "${_options}")
    endif()
  endforeach()
  set_target_properties(MPI::MPI_C PROPERTIES INTERFACE_LINK_OPTIONS "${_options}")
endfunction()

# HPCP_MPI_FROM_PYPI: ON when the MPI found is PyPI's MPICH of the build's Python; in a
# pip build its wrapper's RPATH is then dropped.
function(hpcp_mpi_origin)
  set(_from_pypi OFF)
  if(HPCP_PYPI_MPICC AND MPI_C_COMPILER)
    unset(_hpcp_used_mpicc CACHE)
    find_program(_hpcp_used_mpicc NAMES "${MPI_C_COMPILER}")
    if(_hpcp_used_mpicc)
      file(REAL_PATH "${_hpcp_used_mpicc}" _used)
      file(REAL_PATH "${HPCP_PYPI_MPICC}" _pypi)
      if(_used STREQUAL _pypi)
        set(_from_pypi ON)
      endif()
    endif()
  endif()
  if(_from_pypi AND DEFINED SKBUILD_SCRIPTS_DIR)
    get_filename_component(_pypi_bin "${_pypi}" DIRECTORY)
    file(REAL_PATH "${_pypi_bin}/../lib" _pypi_lib)
    _hpcp_drop_wrapper_rpath("${_pypi_lib}")
  endif()
  set(HPCP_MPI_FROM_PYPI ${_from_pypi} PARENT_SCOPE)
endfunction()

# What build_info.json names as the MPI's wrapper and launcher (read by the launchers,
# python/hpcprobe/resources.py): PyPI's MPICH in a pip install by name alone, meaning the
# scripts directory of the environment hpcprobe is installed in; any other, its path.
function(hpcp_build_info_mpi)
  set(_mpicc "${MPI_C_COMPILER}")
  set(_mpiexec "${MPIEXEC_EXECUTABLE}")
  if(HPCP_MPI_FROM_PYPI AND DEFINED SKBUILD_SCRIPTS_DIR)
    get_filename_component(_mpicc "${_mpicc}" NAME)
    get_filename_component(_mpiexec "${_mpiexec}" NAME)
  endif()
  set(HPCP_BUILD_INFO_MPICC "${_mpicc}" PARENT_SCOPE)
  set(HPCP_BUILD_INFO_MPIEXEC "${_mpiexec}" PARENT_SCOPE)
endfunction()

# The directory `lib` is found in, as the installed binary's RPATH entry: relative to the
# binary ($ORIGIN) for PyPI's MPICH and scipy-openblas32 in a pip install, else absolute.
function(_hpcp_rpath_entry lib out)
  get_filename_component(_dir "${lib}" DIRECTORY)
  file(REAL_PATH "${_dir}" _real)
  set(_entry "${_dir}")
  if(DEFINED SKBUILD_SCRIPTS_DIR)
    get_filename_component(_name "${lib}" NAME)
    if(HPCP_MPI_FROM_PYPI)
      get_filename_component(_pypi_bin "${HPCP_PYPI_MPICC}" DIRECTORY)
      file(REAL_PATH "${_pypi_bin}/../lib" _pypi_lib)
    endif()
    if(HPCP_MPI_FROM_PYPI AND _real STREQUAL _pypi_lib)
      set(_entry "$ORIGIN/${HPCP_SCRIPTS_TO_PREFIX}/lib")
    elseif(_name MATCHES "^libscipy_openblas" AND HPCP_SCRIPTS_TO_PLATLIB)
      set(_entry "$ORIGIN/${HPCP_SCRIPTS_TO_PLATLIB}/scipy_openblas32/lib")
    endif()
  endif()
  set(${out} "${_entry}" PARENT_SCOPE)
endfunction()

# The install RPATH of `target` (linked with hpcprobe_core): one entry per directory of a
# library it links outside the linker's own directories, in link order.
function(hpcp_set_install_rpath target)
  get_target_property(_core_libs hpcprobe_core LINK_LIBRARIES)
  set(_implicit ${CMAKE_C_IMPLICIT_LINK_DIRECTORIES} ${CMAKE_PLATFORM_IMPLICIT_LINK_DIRECTORIES})
  set(_rpath "")
  foreach(_lib IN LISTS MPI_C_LIBRARIES _core_libs)
    if(NOT IS_ABSOLUTE "${_lib}" OR NOT EXISTS "${_lib}")
      continue()
    endif()
    get_filename_component(_dir "${_lib}" DIRECTORY)
    if(NOT _dir IN_LIST _implicit)
      _hpcp_rpath_entry("${_lib}" _entry)
      list(APPEND _rpath "${_entry}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES _rpath)
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "${_rpath}"
                        INSTALL_RPATH_USE_LINK_PATH OFF)
  message(STATUS "hpcprobe: ${target} finds its libraries in: ${_rpath}")
endfunction()
