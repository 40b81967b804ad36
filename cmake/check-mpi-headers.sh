#!/bin/sh
# check-mpi-headers.sh WRAPPER: does the MPI C compiler wrapper have its mpi.h?
#
# An MPI's run-time package can install the wrapper without the headers (Debian's
# openmpi-bin without libopenmpi-dev), and CMake's FindMPI then fails with a page about
# an include directory that does not exist. This prints one line on stderr saying what
# is missing and which package provides it, and exits 2. It exits 0 when the header is
# there, or when the wrapper answers neither Open MPI's nor MPICH's question (FindMPI
# decides then). Run by the Makefile before pip starts and by cmake/hpcp_mpi.cmake.
set -u
set -f # the wrapper's answer is split into words below; none of them is a pattern

wrapper=${1:?usage: check-mpi-headers.sh MPI_C_COMPILER_WRAPPER}
if ! command -v "$wrapper" >/dev/null 2>&1; then
  echo "MPI C compiler wrapper '$wrapper' not found or not executable; set MPICC to an MPI's mpicc" >&2
  exit 2
fi

# The directories after -I or -isystem in a compile line.
include_dirs() {
  after_flag=
  for word in "$@"; do
    if [ -n "$after_flag" ]; then
      echo "$word"
      after_flag=
      continue
    fi
    case $word in
    -I | -isystem) after_flag=1 ;;
    -I*) echo "${word#-I}" ;;
    -isystem*) echo "${word#-isystem}" ;;
    esac
  done
}

# Open MPI names its include directories itself; MPICH (and Intel MPI, MVAPICH) print
# the whole compile line. Either says which MPI it is, and so which package is missing.
if dirs=$("$wrapper" -showme:incdirs 2>/dev/null); then
  package="Open MPI's headers (libopenmpi-dev on Debian and Ubuntu, openmpi-devel on Fedora and RHEL)"
elif line=$("$wrapper" -show 2>/dev/null); then
  # shellcheck disable=SC2086 # split into words on purpose (globbing is off)
  dirs=$(include_dirs $line)
  package="MPICH's headers (libmpich-dev on Debian and Ubuntu, mpich-devel on Fedora and RHEL)"
else
  exit 0
fi

named=
count=0
for dir in $dirs; do
  [ -f "$dir/mpi.h" ] && exit 0
  named="$named $dir"
  count=$((count + 1))
done
if [ "$count" -gt 0 ]; then
  if [ "$count" -eq 1 ]; then
    echo "$wrapper names include dir${named} but it has no mpi.h: install $package" >&2
  else
    echo "$wrapper names include dirs$named but none has mpi.h: install $package" >&2
  fi
  exit 2
fi

# No include directory named: the header must be on the compiler's own search path.
# Only a missing mpi.h is judged here; any other failure is left to FindMPI to report.
why=$(printf '#include <mpi.h>\n' | "$wrapper" -E -x c - 2>&1 >/dev/null) && exit 0
case $why in
*mpi.h*)
  echo "$wrapper names no include dir and its compiler finds no mpi.h: install $package" >&2
  exit 2
  ;;
esac
exit 0
