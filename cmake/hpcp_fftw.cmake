# FFTW3 (double) for the fft family, when found; the internal Stockham FFT is always built.
# HPCP_FFTW: auto (use it if found), on (required), off. Sets HPCP_FFTW_FOUND,
# HPCP_FFTW_LIBRARY and HPCP_FFTW_INCLUDE_DIR.
set(HPCP_FFTW "auto" CACHE STRING "FFTW3: auto, on or off")
set_property(CACHE HPCP_FFTW PROPERTY STRINGS auto on off)
set(HPCP_FFTW_FOUND OFF)
if(NOT HPCP_FFTW STREQUAL "off")
  find_path(HPCP_FFTW_INCLUDE_DIR fftw3.h HINTS ENV FFTW_ROOT PATH_SUFFIXES include)
  find_library(HPCP_FFTW_LIBRARY NAMES fftw3 HINTS ENV FFTW_ROOT PATH_SUFFIXES lib lib64)
  if(HPCP_FFTW_INCLUDE_DIR AND HPCP_FFTW_LIBRARY)
    set(HPCP_FFTW_FOUND ON)
    message(STATUS "hpcprobe: FFTW3 ${HPCP_FFTW_LIBRARY}")
  elseif(HPCP_FFTW STREQUAL "on")
    message(FATAL_ERROR "hpcprobe: HPCP_FFTW=on but fftw3.h or libfftw3 was not found "
            "(apt-get install libfftw3-dev, or set FFTW_ROOT)")
  else()
    message(STATUS "hpcprobe: FFTW3 not found; fft runs the internal Stockham FFT only")
  endif()
endif()
