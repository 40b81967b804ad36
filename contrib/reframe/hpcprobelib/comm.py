'''MPI functions (``hpcprobe comm``): IMB's PingPong ... Alltoall over message sizes.'''

import os

import reframe.utility.sanity as sn
from reframe.core.builtins import (parameter, performance_function, run_after, run_before,
                                   variable)

from hpcprobelib.base import hpcprobe_benchmark
from hpcprobelib.records import (largest_x, read_records, records_of, series_at_x,
                                 series_names, smallest_x)

US = 1e-6  # seconds per microsecond
MB = 1e6  # bytes per MB, as IMB counts them


class hpcprobe_comm(hpcprobe_benchmark):
    '''One MPI function over a list of message sizes, IMB's way.

    Times are IMB's t_avg (over the ranks) per call; PingPong's is half a round trip.
    The bandwidth is IMB's, from t_max, for the functions IMB gives one for.
    '''

    family = 'comm'

    #: The function (``pingpong``, ``pingping``, ``sendrecv``, ``exchange``,
    #: ``allreduce``, ``reduce``, ``alltoall``, ``bcast``, ``barrier`` ...).
    function = parameter(['pingpong', 'allreduce'])

    #: Message sizes (``--sizes``: ``SIZE`` or ``A..B`` items, comma separated); one
    #: run sweeps them all. Empty: hpcprobe's ``0..4M``.
    message_sizes = variable(str, value='')

    #: Seconds of timed calls per size (``--time-per-size``); ``None``: hpcprobe's 0.1.
    time_per_size = variable(float, type(None), value=None)

    @run_after('init')
    def set_variant(self):
        # comm's variant is the function: `hpcprobe comm pingpong`.
        self.variant = self.function

    def benchmark_options(self):
        options = []
        if self.message_sizes:
            options += ['--sizes', self.message_sizes]
        if self.time_per_size is not None:
            options += ['--time-per-size', self.time_per_size]
        return options

    def time_at(self, size):
        '''t_avg at a message size, in microseconds (deferred).'''
        return series_at_x(self.records(), 'time_avg', size) / US

    @performance_function('us')
    def latency(self):
        '''t_avg at the smallest message size.'''
        return self.time_at(smallest_x(self.records(), 'time_avg'))

    @performance_function('us')
    def time_largest(self):
        '''t_avg at the largest message size.'''
        return self.time_at(largest_x(self.records(), 'time_avg'))

    @run_before('performance')
    def add_bandwidth(self):
        # Only the functions IMB gives a bandwidth for have the curve.
        path = os.path.join(self.stagedir, self.results_file)
        mine = sn.evaluate(records_of(read_records(path), self.family, self.variant))
        if mine and 'bandwidth' in series_names(mine[-1]):
            at = largest_x(self.records(), 'bandwidth')
            self.perf_variables['bandwidth'] = sn.make_performance_function(
                series_at_x(self.records(), 'bandwidth', at) / MB, 'MB/s')
