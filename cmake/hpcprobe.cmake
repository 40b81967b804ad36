# Compiler flags shared by every hpcprobe target, and the helper that adds a kernel.
set(HPCP_WARNINGS -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter)
if(HPCP_WERROR)
  list(APPEND HPCP_WARNINGS -Werror)
endif()
set(HPCP_TUNING "")
if(HPCP_NATIVE)
  include(CheckCCompilerFlag)
  check_c_compiler_flag(-march=native HPCP_HAVE_MARCH_NATIVE)
  if(HPCP_HAVE_MARCH_NATIVE)
    set(HPCP_TUNING -march=native)
  endif()
endif()
# What every record and build_info.json say of it: "native" (this CPU's instructions, a
# source build) or "portable" (the architecture's baseline, a wheel for other machines;
# kernels that need wider vectors choose them at run time, as fft and stream do).
if(HPCP_TUNING)
  set(HPCP_TUNING_NAME native)
else()
  set(HPCP_TUNING_NAME portable)
endif()

# hpcp_add_kernel(<source>...): add kernel sources to the core library.
function(hpcp_add_kernel)
  target_sources(hpcprobe_core PRIVATE ${ARGN})
endfunction()

# `make sanitize`: AddressSanitizer and UndefinedBehaviorSanitizer on every target, with
# the project's own warnings still errors; any UB report aborts the program (a test fails).
option(HPCP_SANITIZE "Build with -fsanitize=address,undefined" OFF)
if(HPCP_SANITIZE)
  set(_hpcp_sanitize -fsanitize=address,undefined -fno-sanitize-recover=undefined
                     -fno-omit-frame-pointer)
  add_compile_options(${_hpcp_sanitize})
  add_link_options(${_hpcp_sanitize})
endif()
