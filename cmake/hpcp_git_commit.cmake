# Which commit of hpcprobe was built, recorded in every result as git_commit.
#
# Only the project's own tree may say: `git describe` runs when the source folder is the
# top level of its git work tree. A copy of the tree inside another repository (a site's
# own, a vendored subfolder) would otherwise record that repository's commit as
# hpcprobe's, and `compare` would match runs by it. Anywhere else the commit is
# "unknown", beside the version (the sdist says the same).
#
# Also a script, for tests: cmake -DHPCP_SOURCE_DIR=DIR -P cmake/hpcp_git_commit.cmake
# prints what a build of DIR would record.
function(hpcp_git_commit source_dir out_var)
  set(_commit "unknown")
  execute_process(COMMAND git rev-parse --show-toplevel
                  WORKING_DIRECTORY "${source_dir}"
                  OUTPUT_VARIABLE _top OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET RESULT_VARIABLE _top_rc)
  get_filename_component(_here "${source_dir}" REALPATH)
  if(_top_rc EQUAL 0 AND _top)
    get_filename_component(_top "${_top}" REALPATH)
  endif()
  if(_top_rc EQUAL 0 AND _top STREQUAL _here)
    execute_process(COMMAND git describe --always --dirty --abbrev=12
                    WORKING_DIRECTORY "${source_dir}"
                    OUTPUT_VARIABLE _git OUTPUT_STRIP_TRAILING_WHITESPACE
                    ERROR_QUIET RESULT_VARIABLE _git_rc)
    if(_git_rc EQUAL 0 AND _git)
      set(_commit "${_git}")
    endif()
  endif()
  set(${out_var} "${_commit}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND DEFINED HPCP_SOURCE_DIR)
  hpcp_git_commit("${HPCP_SOURCE_DIR}" _found)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E echo "${_found}")
endif()
