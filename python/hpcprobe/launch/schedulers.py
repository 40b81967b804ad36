"""Batch schedulers for `hpcprobe script` (docs/cli.md): the directive lines a job script
asks Slurm or PBS with, how the running job names itself and its array element, where
its hosts are listed, and what hpcprobe's launcher needs inside the allocation.

Everything here is text for a bash script. What goes into a directive line (names, a
walltime) is checked by the command line before it gets here; the words of the job's
command are quoted by the caller."""

import shlex
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple


@dataclass(frozen=True)
class JobRequest:
    """What the job asks for: `nodes` x `tasks_per_node` ranks, a job array of
    `array_size` elements (0: no array), and the optional time limit (HH:MM:SS),
    partition or queue, and account."""

    nodes: int
    tasks_per_node: int
    job_name: str
    time: Optional[str] = None
    partition: Optional[str] = None
    account: Optional[str] = None
    array_size: int = 0

    @property
    def ranks(self) -> int:
        return self.nodes * self.tasks_per_node


@dataclass(frozen=True)
class JobCommand:
    """The hpcprobe command a job runs: `words` as given (its --out DIR taken out into
    `out_dir`), then `added`, the words the script adds (--np, the launcher, --out):
    one that names a variable ($RESULTS, $PBS_NODEFILE) is put in double quotes, for
    the shell to expand it; in a job array, each element adds `array_option`=one of
    `array_values`."""

    words: Tuple[str, ...]
    added: Tuple[str, ...] = ()
    out_dir: Optional[str] = None
    array_option: Optional[str] = None
    array_values: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Scheduler:
    """One scheduler: `directives(request)` are the script's header lines; `setup`
    comes first in the body; `job_lines(array)` set JOB (a token that names this job or
    array element, for its results directory) and, in an array, INDEX (the element);
    `hosts_command` prints the allocation's hosts one per line; `variables` are the
    scheduler's own environment variables recorded in allocation.json when set;
    `launcher_words` are added to a launching command that names no launcher (their
    variables expanded by the shell)."""

    name: str
    submit: str
    directives: Callable[[JobRequest], List[str]]
    setup: Tuple[str, ...]
    job_lines: Callable[[bool], List[str]]
    job_id_variable: str
    hosts_command: str
    variables: Tuple[str, ...]
    launcher_words: Tuple[str, ...]


def _slurm_directives(request: JobRequest) -> List[str]:
    options = [f"--job-name={request.job_name}", f"--nodes={request.nodes}",
               f"--ntasks-per-node={request.tasks_per_node}"]
    for option, value in (("time", request.time), ("partition", request.partition),
                          ("account", request.account)):
        if value is not None:
            options.append(f"--{option}={value}")
    if request.array_size:
        options.append(f"--array=0-{request.array_size - 1}")
    # %j: the job id; %A_%a: an array's job id and the element, as JOB below.
    options.append(f"--output={request.job_name}-{'%A_%a' if request.array_size else '%j'}.out")
    return [f"#SBATCH {option}" for option in options]


def _slurm_job_lines(array: bool) -> List[str]:
    if array:
        return ['INDEX="$SLURM_ARRAY_TASK_ID"', 'JOB="${SLURM_ARRAY_JOB_ID}_${INDEX}"']
    return ['JOB="$SLURM_JOB_ID"']


def _pbs_directives(request: JobRequest) -> List[str]:
    k = request.tasks_per_node
    lines = [f"-N {request.job_name}", "-S /bin/bash", "-j oe",
             f"-l select={request.nodes}:ncpus={k}:mpiprocs={k}"]
    if request.time is not None:
        lines.append(f"-l walltime={request.time}")
    if request.partition is not None:
        lines.append(f"-q {request.partition}")
    if request.account is not None:
        lines.append(f"-A {request.account}")
    if request.array_size:
        lines.append(f"-J 0-{request.array_size - 1}")
    return [f"#PBS {line}" for line in lines]


def _pbs_job_lines(array: bool) -> List[str]:
    # PBS_JOBID is 1234.server (an element: 1234[7].server); the token drops the server
    # and the brackets, which a shell would take for a pattern.
    if array:
        return ['INDEX="$PBS_ARRAY_INDEX"', 'JOB="${PBS_ARRAY_ID%%\\[*}_${INDEX}"']
    return ['JOB="${PBS_JOBID%%.*}"']


SLURM = Scheduler(
    name="slurm", submit="sbatch", directives=_slurm_directives, setup=(),
    job_lines=_slurm_job_lines, job_id_variable="SLURM_JOB_ID",
    hosts_command='scontrol show hostnames "$SLURM_JOB_NODELIST"',
    variables=("SLURM_JOB_ID", "SLURM_JOB_NAME", "SLURM_JOB_NODELIST", "SLURM_JOB_NUM_NODES",
               "SLURM_NTASKS", "SLURM_TASKS_PER_NODE", "SLURM_JOB_PARTITION",
               "SLURM_JOB_ACCOUNT", "SLURM_CLUSTER_NAME", "SLURM_ARRAY_JOB_ID",
               "SLURM_ARRAY_TASK_ID", "SLURM_SUBMIT_DIR"),
    # hpcprobe picks srun by itself inside an allocation (launch/locate.py).
    launcher_words=(),
)
PBS = Scheduler(
    name="pbs", submit="qsub", directives=_pbs_directives,
    # PBS starts a job in the home directory, Slurm in the one it was submitted from.
    setup=('cd "${PBS_O_WORKDIR:-.}"',),
    job_lines=_pbs_job_lines, job_id_variable="PBS_JOBID",
    # The node file has a line per MPI process; the hosts once each, in its order.
    hosts_command="awk '!seen[$0]++' \"$PBS_NODEFILE\"",
    variables=("PBS_JOBID", "PBS_JOBNAME", "PBS_QUEUE", "PBS_NODEFILE", "PBS_ARRAY_ID",
               "PBS_ARRAY_INDEX", "PBS_O_WORKDIR", "NCPUS"),
    # --hostfile is read by MPICH's hydra and Open MPI's mpiexec alike.
    launcher_words=("--launcher", "mpiexec", "--launcher-arg=--hostfile",
                    "--launcher-arg=$PBS_NODEFILE"),
)
SCHEDULERS: Dict[str, Scheduler] = {scheduler.name: scheduler for scheduler in (SLURM, PBS)}
# What a launching command writes into: the directory the script makes for the job.
OUT_WORD = "--out=$RESULTS"

# Bash functions that write allocation.json: JSON by hand, since the job may run where no
# interpreter but the shell is known. Control characters are left out of the strings.
_JSON_FUNCTIONS = r'''json_string() {  # $1 as a JSON string
  local text="${1//\\/\\\\}"
  text="${text//\"/\\\"}"
  printf '"%s"' "$(printf '%s' "$text" | tr -d '\000-\037')"
}
json_list() {  # the arguments as a JSON list of strings
  local separator="" word
  printf '['
  for word in "$@"; do
    printf '%s%s' "$separator" "$(json_string "$word")"
    separator=", "
  done
  printf ']'
}
json_variables() {  # the variables named that are set, as a JSON object
  local separator="" name
  printf '{'
  for name in "$@"; do
    if [ -n "${!name+set}" ]; then
      printf '%s"%s": %s' "$separator" "$name" "$(json_string "${!name}")"
      separator=", "
    fi
  done
  printf '}'
}'''


def allocation_lines(scheduler: Scheduler, array: bool) -> List[str]:
    """Shell lines writing "$RESULTS/allocation.json": the scheduler, the job id (as
    the records' metadata.slurm_job_id has it under Slurm), the array element, the hosts
    and the scheduler's own variables."""
    index = '"$(json_string "$INDEX")"' if array else "null"
    return [
        _JSON_FUNCTIONS,
        f"mapfile -t HOSTS < <({scheduler.hosts_command} 2>/dev/null || true)",
        "{",
        f'  printf \'{{"scheduler": "{scheduler.name}", "job_id": %s, "array_index": %s, \' '
        f'"$(json_string "${{{scheduler.job_id_variable}:-}}")" {index}',
        '  printf \'"hosts": %s, \' "$(json_list ${HOSTS[@]+"${HOSTS[@]}"})"',
        f'  printf \'"variables": %s}}\\n\' "$(json_variables {" ".join(scheduler.variables)})"',
        '} > "$RESULTS/allocation.json"',
    ]


def _results_line(command: JobCommand) -> str:
    """RESULTS=: the command's --out DIR (an array element: DIR/INDEX), else
    hpcprobe-results-JOB in the directory the job runs in."""
    if command.out_dir is None:
        return 'RESULTS="hpcprobe-results-$JOB"'
    if command.array_option is not None:
        return f'RESULTS={shlex.quote(command.out_dir)}/"$INDEX"'
    return f"RESULTS={shlex.quote(command.out_dir)}"


def _run_line(command: JobCommand) -> str:
    words = ['"$HPCPROBE"', *(shlex.quote(word) for word in command.words)]
    if command.array_option is not None:
        words.append(f'{command.array_option}="${{VALUES[$INDEX]}}"')
    words += [f'"{word}"' if "$" in word else shlex.quote(word) for word in command.added]
    return " ".join(words)


def job_script(scheduler: Scheduler, request: JobRequest, hpcprobe: str,
               command: JobCommand) -> str:
    """The bash job script: directives, the results directory, allocation.json, then
    the command run by `hpcprobe` (a path)."""
    array = command.array_option is not None
    lines = ["#!/bin/bash", *scheduler.directives(request),
             f"# Written by hpcprobe script; submit it with {scheduler.submit}. The job writes",
             "# allocation.json (the scheduler's view) and the records into $RESULTS.",
             "set -eu", *scheduler.setup, f"HPCPROBE={shlex.quote(hpcprobe)}"]
    if array:
        lines.append(f"VALUES=({' '.join(shlex.quote(value) for value in command.array_values)})")
    lines += scheduler.job_lines(array)
    lines += [_results_line(command), 'mkdir -p -- "$RESULTS"']
    lines += allocation_lines(scheduler, array)
    lines.append(_run_line(command))
    return "\n".join(lines) + "\n"
