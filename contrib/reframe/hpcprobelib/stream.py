'''STREAM (``hpcprobe stream``): Copy, Scale, Add and Triad bandwidths in GB/s.'''

from reframe.core.builtins import parameter, performance_function, variable

from hpcprobelib.base import hpcprobe_benchmark
from hpcprobelib.records import best_sample, series_mean

GB = 1e9


def size_name(size):
    '''A size parameter in a test's name: hpcprobe's own sizing shows as ``auto``.'''
    return 'auto' if size is None else str(size)


class hpcprobe_stream(hpcprobe_benchmark):
    '''STREAM on one rank alone (``single``) or on every rank at once (``star``).

    ``single``: each kernel's best iteration (STREAM's figure). ``star``: the mean over
    the ranks of each rank's best iteration (HPCC's StarSTREAM).
    '''

    family = 'stream'
    variant = 'star'

    #: Bytes per array (``--array-bytes``: 4096, 64K, 512M ...); ``None``: hpcprobe's
    #: default, four times the node's last-level caches and at least 32 MiB.
    array_bytes = parameter([None], fmt=size_name)

    #: Iterations, the first a warm-up (``--repeat``, 2-50); ``None``: hpcprobe's 10.
    iterations = variable(int, type(None), value=None)

    def benchmark_options(self):
        options = []
        if self.array_bytes is not None:
            options += ['--array-bytes', self.array_bytes]
        if self.iterations is not None:
            options += ['--repeat', self.iterations]
        return options

    def best_rate(self, kernel):
        '''A kernel's figure for this variant, in GB/s (deferred).'''
        if self.variant == 'single':
            return best_sample(self.records(), f'single_{kernel}_bandwidth') / GB

        return series_mean(self.records(), f'star_{kernel}_best_bandwidth') / GB

    @performance_function('GB/s')
    def copy(self):
        return self.best_rate('copy')

    @performance_function('GB/s')
    def scale(self):
        return self.best_rate('scale')

    @performance_function('GB/s')
    def add(self):
        return self.best_rate('add')

    @performance_function('GB/s')
    def triad(self):
        return self.best_rate('triad')
