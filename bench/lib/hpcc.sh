# shellcheck shell=bash
# Shared by the bench scripts that run Debian's hpcc (HPC Challenge 1.5.0) beside
# hpcprobe under the same Open MPI: tools, build, hpcc's input, the launches and the
# report's Python helpers (ra_results.py, next to this file). Sourced, not run.
#
# The sourcing script sets BENCH (its name, for log lines), NP (ranks), and either
# LOCAL_LOG2 and GLOBAL_LOG2 (hpcc's RandomAccess tables: words per rank, and in total)
# or HPL_N (the matrix order every HPCC test is sized from) first.
# Every command is built as an argument list; nothing is passed through a shell string.

BENCH_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly BENCH_LIB
readonly HPL_NB=80

# The venv the benches build into and run from: VENV=.venv-sys keeps the default .venv
# (the PyPI MPICH build) untouched while a bench runs against the system MPI.
VENV=${VENV:-.venv}
readonly VENV

# mpirun refuses to run as root without this; hpcprobe's launches inherit it too.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

log() { printf '[%s] %s\n' "$BENCH" "$*" >&2; }
die() { log "error: $*"; exit 1; }

apt_install() {
  # The package index is usually current; refresh it only when that is not enough.
  apt-get install -y "$@" || { apt-get update && apt-get install -y "$@"; }
}

ensure_tools() {
  if ! command -v hpcc >/dev/null || ! command -v mpicc >/dev/null; then
    log "installing hpcc and Open MPI"
    apt_install hpcc openmpi-bin libopenmpi-dev
  fi
  # Debian's hpcc links Open MPI; hpcprobe must use the same library and launcher, and
  # mpicc/mpirun are alternatives that could point at another MPI.
  [[ $(mpirun --version 2>&1) == *"Open MPI"* ]] || die "mpirun is not Open MPI's"
  [[ $(mpicc --showme:version 2>&1) == *"Open MPI"* ]] || die "mpicc is not Open MPI's"
}

# hpcc cannot skip HPL and DGEMM; Debian's serial OpenBLAS (installed if missing) keeps
# them short. Sets HPCC_BLAS_DIR unless it is set already (see run_hpcc).
ensure_openblas() {
  [[ -n ${HPCC_BLAS_DIR:-} ]] && return
  local dir=/usr/lib/x86_64-linux-gnu/openblas-serial
  [[ -f $dir/libblas.so.3 ]] || apt_install libopenblas0-serial
  export HPCC_BLAS_DIR=$dir
}

build_hpcprobe() {
  log "building hpcprobe against the system MPI"
  make build MPI=system VENV="$VENV"
  [[ -x $VENV/bin/hpcprobe ]] || die "$VENV/bin/hpcprobe missing after make build"
}

# The HPL matrix order that makes hpcc's RandomAccess tables 2^LOCAL_LOG2 words per rank
# and NP times that in total.
#
# HPCC sizes every test from the largest HPL matrix: 8*N*N bytes over the P*Q ranks of
# the smallest grid. RandomAccess takes the largest power of two of 64-bit words that fits
# in that per-rank memory (single/star), or in the sum over all ranks (mpi). With a 1xNP
# grid the per-rank table is 2^floor(log2(N*N/NP)) words; the smallest multiple of HPL_NB
# that reaches 2^LOCAL_LOG2 keeps HPL/DGEMM/PTRANS short (2^26 on 2 ranks: N = 11600).
hpl_n() {
  local words=$((1 << LOCAL_LOG2)) n=$HPL_NB
  while (( n * n / NP < words )); do n=$((n + HPL_NB)); done
  (( n * n / NP < 2 * words )) || die "no multiple of $HPL_NB gives 2^$LOCAL_LOG2 words per rank"
  echo "$n"
}

# write_hpccinf DIR: HPL section (32 lines, fixed layout), then PTRANS with no sizes
# beyond HPL's own.
write_hpccinf() {
  local n=${HPL_N:-}
  [[ -n $n ]] || n=$(hpl_n)
  cat >"$1/hpccinf.txt" <<EOF
HPCC input for bench/$BENCH
HPL N = $n on $NP ranks (1x$NP grid)
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
$n        Ns
1            # of NBs
$HPL_NB           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
1            Ps
$NP            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### line 32: separator between the HPL and PTRANS parameters #####
0            number of additional problem sizes for PTRANS
$n        values of N
0            number of additional blocking sizes for PTRANS
$HPL_NB           values of NB
EOF
}

# run_hpcc DIR: hpcc reads hpccinf.txt from, and writes
# hpccoutf.txt to, its working directory. A caller may set the array HPCC_MPIRUN_ARGS
# (local to it) for more mpirun arguments, e.g. (-x NAME=VALUE).
#
# HPCC_BLAS_DIR: a directory with another libblas.so.3 for hpcc only. hpcc cannot skip
# HPL and DGEMM, which Debian's reference BLAS makes take most of its run; RandomAccess
# does not use BLAS, so e.g. an unpacked libopenblas0-serial
# (.../usr/lib/x86_64-linux-gnu/openblas-serial) only shortens the wait.
run_hpcc() {
  local dir=$1
  mkdir -p "$dir"
  write_hpccinf "$dir"
  log "hpcc (all of HPCC; minutes at full size) in $dir"
  (
    cd "$dir"
    if [[ -n ${HPCC_BLAS_DIR:-} ]]; then
      export LD_LIBRARY_PATH="$HPCC_BLAS_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    fi
    mpirun -np "$NP" ${HPCC_MPIRUN_ARGS[@]+"${HPCC_MPIRUN_ARGS[@]}"} hpcc >hpcc.log 2>&1
  ) || die "hpcc failed; see $dir/hpcc.log"
  grep -q '^End of Summary section' "$dir/hpccoutf.txt" || die "no summary in $dir/hpccoutf.txt"
}

# run_hpcprobe DIR VARIANT LOG2 [OPTION...]: one `hpcprobe ra` launch on NP ranks under
# Open MPI's mpirun, its record in DIR/results.jsonl.
run_hpcprobe() {
  local dir=$1 variant=$2 log2=$3
  shift 3
  local cmd=("$VENV/bin/hpcprobe" ra "$variant" --np "$NP" --table-log2 "$log2"
             --launcher mpirun --out "$dir" "$@")
  log "${cmd[*]}"
  "${cmd[@]}" || die "hpcprobe ra $variant failed; see $dir"
}

# report_py SCRIPT ARG...: run a report with ra_results importable.
report_py() {
  PYTHONPATH="$BENCH_LIB${PYTHONPATH:+:$PYTHONPATH}" python3 -c "$@"
}
