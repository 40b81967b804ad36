# The GPU family's CUDA code (core/kernels/gpu, runtime/device_cuda.cu): built when a CUDA
# compiler is found (HPCP_CUDA=auto, the default), required with HPCP_CUDA=on, left out
# with off. Without it the binary still has `gpu`, which says in one line that the build
# has no CUDA (runtime/device_none.c). The static CUDA runtime is linked, so the binary
# starts on a node without a driver and finds a device at run time (docs/building.md).
set(HPCP_CUDA auto CACHE STRING "Build the CUDA code of the gpu family: auto, on or off")
set_property(CACHE HPCP_CUDA PROPERTY STRINGS auto on off)
set(HPCP_CUDA_FOUND OFF)
if(NOT HPCP_CUDA MATCHES "^(auto|on|off)$")
  message(FATAL_ERROR "HPCP_CUDA must be auto, on or off, not '${HPCP_CUDA}'")
endif()
if(NOT HPCP_CUDA STREQUAL "off")
  # nvcc is often outside PATH (/usr/local/cuda/bin): look there too.
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
    find_program(HPCP_NVCC nvcc HINTS ENV CUDA_HOME ENV CUDA_PATH PATH_SUFFIXES bin
                 PATHS /usr/local/cuda/bin)
    if(HPCP_NVCC)
      set(CMAKE_CUDA_COMPILER "${HPCP_NVCC}")
    endif()
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Current data-centre GPUs (A100: sm_80, H100/H200: sm_90) as machine code, and
    # sm_90's PTX for newer devices, which the driver compiles when it loads it.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 80-real 90-real 90-virtual)
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(HPCP_CUDA_FOUND ON)
    message(STATUS "hpcprobe: CUDA ${CMAKE_CUDA_COMPILER_VERSION} for ${CMAKE_CUDA_ARCHITECTURES}")
  elseif(HPCP_CUDA STREQUAL "on")
    message(FATAL_ERROR "HPCP_CUDA=on but no CUDA compiler was found (set CUDACXX or "
                        "CMAKE_CUDA_COMPILER to nvcc)")
  else()
    message(STATUS "hpcprobe: no CUDA compiler: the gpu family is built without device code")
  endif()
endif()

# hpcp_add_cuda(<source>...): CUDA sources of the core library, with the project's
# warnings as errors for the host side.
function(hpcp_add_cuda)
  target_sources(hpcprobe_core PRIVATE ${ARGN})
  set_source_files_properties(${ARGN} TARGET_DIRECTORY hpcprobe_core PROPERTIES
    COMPILE_OPTIONS "-Xcompiler=-Wall,-Wextra,-Werror;-Werror=all-warnings")
endfunction()
