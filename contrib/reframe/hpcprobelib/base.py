'''The base of every hpcprobe test: how hpcprobe is started and how its run is judged.

Sanity is hpcprobe's own validation verdict, read from the records the run writes
(``validation.verdict`` must be ``passed`` and ``status`` ``ok``), never a pattern in
the output. The family classes (stream, comm, ra, dense) add their options and
performance variables.
'''

import shlex

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.backends import getlauncher
from reframe.core.builtins import parameter, run_after, run_before, sanity_function, variable

from hpcprobelib.records import read_records, records_of, unvalidated

#: Where the records go in the stage directory, for each way of launching.
BENCH_RESULTS = 'results.jsonl'
HPCPROBE_OUT_DIR = 'hpcprobe-out'
LAUNCHED_BY = ('reframe', 'hpcprobe')


class hpcprobe_benchmark(rfm.RunOnlyRegressionTest):
    '''Run one hpcprobe benchmark and judge it by its records.

    Two ways to start the ranks (``launched_by``):

    - ``'reframe'``: the partition's launcher (``mpiexec``, ``srun`` ...) starts
      ``hpcprobe-bench`` on ``num_tasks = num_ranks`` tasks, as it starts any MPI program;
    - ``'hpcprobe'``: ReFrame runs the ``hpcprobe`` command once (the local launcher) and
      hpcprobe starts the ranks itself with ``--np num_ranks`` and ``hpcprobe_launcher``
      (binding each rank to a core, with its watchdog). ``num_tasks`` is still
      ``num_ranks``, so a batch scheduler allocates room for them.
    '''

    #: Ranks to run on.
    num_ranks = parameter([2])

    #: Who starts the ranks: ``'reframe'`` or ``'hpcprobe'`` (see the class doc).
    launched_by = variable(str, value='reframe')

    #: ``hpcprobe --launcher`` when ``launched_by='hpcprobe'`` (``mpiexec``, ``mpirun``,
    #: ``srun`` or a template); empty: hpcprobe's default (``srun`` inside a Slurm job,
    #: else the ``mpiexec`` of the MPI it was built with).
    hpcprobe_launcher = variable(str, value='')

    #: The benchmark executable and the command, found through ``PATH`` unless absolute.
    bench_executable = variable(str, value='hpcprobe-bench')
    hpcprobe_executable = variable(str, value='hpcprobe')

    #: The family (``hpcprobe-bench FAMILY``), set by each family class.
    family = variable(str)

    #: The variant of the family (``stream single``, ``ra mpi`` ...).
    variant = variable(str)

    tags = {'hpcprobe'}

    @run_after('init')
    def check_launched_by(self):
        if self.launched_by not in LAUNCHED_BY:
            raise ValueError(f'launched_by must be one of {", ".join(LAUNCHED_BY)}, '
                             f'not {self.launched_by!r}')

    def benchmark_options(self):
        '''The family's options (argument list); the family classes extend it.'''
        return []

    @property
    def results_file(self):
        '''The records file, relative to the stage directory.'''
        if self.launched_by == 'hpcprobe':
            return f'{HPCPROBE_OUT_DIR}/results.jsonl'

        return BENCH_RESULTS

    def hpcprobe_args(self):
        '''The ``hpcprobe`` options that start the ranks and place the records.'''
        args = ['--np', self.num_ranks, '--out', HPCPROBE_OUT_DIR]
        if self.hpcprobe_launcher:
            args += ['--launcher', self.hpcprobe_launcher]
        return args

    @run_before('run')
    def set_command(self):
        self.num_tasks = self.num_ranks
        args = [self.family, self.variant, *self.benchmark_options()]
        if self.launched_by == 'reframe':
            self.executable = self.bench_executable
            args += ['--out', BENCH_RESULTS]
            kept = BENCH_RESULTS
        else:
            self.executable = self.hpcprobe_executable
            args += self.hpcprobe_args()
            kept = HPCPROBE_OUT_DIR  # the records and hpcprobe's logs
            # hpcprobe starts the ranks: the job runs it once.
            self.job.launcher = getlauncher('local')()

        # ReFrame writes these into a shell script: each is quoted as one argument.
        self.executable_opts = [shlex.quote(str(arg)) for arg in args]
        self.keep_files = [*self.keep_files, kept]

    def records(self):
        '''This benchmark's records of the run (deferred).'''
        return records_of(read_records(self.results_file), self.family, self.variant)

    @sanity_function
    def assert_validated(self):
        '''Every record passed hpcprobe's validation, and hpcprobe exited with 0.'''
        every = read_records(self.results_file)
        return sn.all([
            sn.assert_gt(sn.len(self.records()), 0,
                         msg=f'hpcprobe wrote no {self.family} {self.variant} record '
                             f'to {self.results_file} (see the job output)'),
            sn.assert_eq(unvalidated(every), '',
                         msg='hpcprobe validation did not pass: {0}'),
            sn.assert_eq(self.job.exitcode, 0, msg='hpcprobe exited with status {0}'),
        ])
