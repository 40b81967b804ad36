'''RandomAccess (``hpcprobe ra``): the update rate in GUPS.'''

from reframe.core.builtins import parameter, performance_function, variable

from hpcprobelib.base import hpcprobe_benchmark
from hpcprobelib.records import headline

GUPS = 1e9  # updates/s per GUPS


def table_name(log2):
    return 'auto' if log2 is None else str(log2)


class hpcprobe_ra(hpcprobe_benchmark):
    '''HPC Challenge RandomAccess: ``single``, ``star`` or ``mpi`` (with an algorithm).

    The figure is the record's headline: the median update rate over the repetitions.
    '''

    family = 'ra'
    variant = 'mpi'

    #: The table: 2^K 64-bit words (``--table-log2``; per rank for ``single``/``star``,
    #: global for ``mpi``); ``None``: hpcprobe sizes it from memory, as HPCC does.
    table_log2 = parameter([None], fmt=table_name)

    #: ``mpi``'s algorithm (``--algo``: ``reference``, ``alltoall``, ``hypercube``,
    #: ``torus`` ...); empty: hpcprobe's default, HPCC's reference algorithm.
    algorithm = variable(str, value='')

    #: Timed repetitions (``--repeat``), each verified; ``None``: hpcprobe's 1.
    repetitions = variable(int, type(None), value=None)

    def benchmark_options(self):
        options = []
        if self.table_log2 is not None:
            options += ['--table-log2', self.table_log2]
        if self.algorithm:
            options += ['--algo', self.algorithm]
        if self.repetitions is not None:
            options += ['--repeat', self.repetitions]
        return options

    @performance_function('GUPS')
    def gups(self):
        return headline(self.records()) / GUPS
