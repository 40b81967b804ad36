# hpcprobe: `make run` and `make test` are the two commands a newcomer types;
# `make build` does the set-up alone (venv, install, compile) for scripts.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
MPI ?= mpich
NP ?= $(shell nproc)
BIN := $(abspath $(VENV))/bin
PIP := $(BIN)/pip -q --disable-pip-version-check
CTEST_DIR := build/ctest-$(MPI)

ifeq ($(MPI),mpich)
  BUILD_MPICC = $(BIN)/mpicc
else ifeq ($(MPI),system)
  BUILD_MPICC = $(or $(MPICC),$(shell command -v mpicc))
else
  $(error MPI must be 'mpich' (the PyPI wheel) or 'system' (the MPI on PATH, or MPICC), not '$(MPI)')
endif

.PHONY: build run test ctest pytest clean fftw

# FFTW3 for `hpcprobe fft` (docs/building.md): PyPI has no sound package with FFTW's
# library and headers, so Debian's libfftw3-dev is installed when missing and apt-get can
# (root); elsewhere the build goes on with the internal FFT only, and says so.
FFTW_HEADER ?= /usr/include/fftw3.h
fftw:
	@if [ ! -f $(FFTW_HEADER) ]; then \
	  if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	    echo "installing libfftw3-dev (FFTW3 for hpcprobe fft)"; \
	    apt-get install -y -q libfftw3-dev >/dev/null || \
	      { apt-get update -q >/dev/null && apt-get install -y -q libfftw3-dev >/dev/null; }; \
	  else \
	    echo "note: no $(FFTW_HEADER) and no root apt-get: fft builds with the internal FFT only"; \
	  fi; \
	fi

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

build: $(BIN)/python fftw
	$(PIP) install "scikit-build-core>=0.9" "pytest>=7" "scipy-openblas32>=0.3.27"
ifeq ($(MPI),mpich)
	$(PIP) install "mpich>=4.1"
else
	@# A venv MPICH would shadow the system launcher that matches the binary.
	$(BIN)/pip uninstall -q -y mpich 2>/dev/null || true
	@test -n "$(BUILD_MPICC)" || { echo "MPI=system: no mpicc found; install an MPI (e.g. apt-get install libopenmpi-dev openmpi-bin) or set MPICC=/path/to/mpicc" >&2; exit 2; }
endif
	$(PIP) install --no-build-isolation -C build-dir=build/py-$(MPI) \
	  -C cmake.define.MPI_C_COMPILER=$(BUILD_MPICC) -C cmake.define.Python_EXECUTABLE=$(BIN)/python \
	  ".[test]"
	@echo "built: $(BIN)/hpcprobe and $(BIN)/hpcprobe-bench ($(MPI) MPI)"

run: build
	$(BIN)/hpcprobe run --suite quick --np $(NP)

ctest: build
	cmake -S . -B $(CTEST_DIR) -DHPCP_TESTS=ON -DMPI_C_COMPILER=$(BUILD_MPICC) \
	  -DPython_EXECUTABLE=$(BIN)/python >/dev/null
	cmake --build $(CTEST_DIR) -j 2 >/dev/null
	ctest --test-dir $(CTEST_DIR) --output-on-failure

pytest: build
	$(BIN)/python -m pytest

test: ctest pytest

clean:
	rm -rf build
