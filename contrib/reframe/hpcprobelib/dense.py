'''Dense linear algebra (``hpcprobe hpl``, ``hpcprobe dgemm``): Gflop/s.'''

from reframe.core.builtins import parameter, performance_function, variable

from hpcprobelib.base import hpcprobe_benchmark
from hpcprobelib.records import headline

GFLOPS = 1e9  # flop/s per Gflop/s


def order_name(n):
    return 'auto' if n is None else str(n)


class hpcprobe_dense(hpcprobe_benchmark):
    '''What HPL and DGEMM share: the matrix order and the headline rate.'''

    #: Matrix order (``--n``); ``None``: hpcprobe sizes it from memory as HPCC does.
    matrix_order = parameter([None], fmt=order_name)

    #: Timed repetitions (``--repeat``); ``None``: hpcprobe's 1.
    repetitions = variable(int, type(None), value=None)

    def benchmark_options(self):
        options = []
        if self.matrix_order is not None:
            options += ['--n', self.matrix_order]
        if self.repetitions is not None:
            options += ['--repeat', self.repetitions]
        return options

    @performance_function('Gflop/s')
    def gflops(self):
        return headline(self.records()) / GFLOPS


class hpcprobe_hpl(hpcprobe_dense):
    '''HPL: LU solve of a random dense system on a P x Q grid (the residual check).'''

    family = 'hpl'
    variant = 'mpi'

    #: Block size (``--nb``); ``None``: hpcprobe's 192 (at most N).
    block_size = variable(int, type(None), value=None)

    def benchmark_options(self):
        options = super().benchmark_options()
        if self.block_size is not None:
            options += ['--nb', self.block_size]
        return options


class hpcprobe_dgemm(hpcprobe_dense):
    '''HPCC DGEMM through the BLAS: one rank (``single``) or every rank (``star``).'''

    family = 'dgemm'
    variant = 'star'
