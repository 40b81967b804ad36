'''hpcprobe checks a site runs as they are: small sizes, a few seconds each.

References are (value, lower, upper, unit), the bounds fractions of the value. The
``local:default`` values are typical of the 2-core VM the project is developed on; their
bounds (down to a twentieth of a rate, up to 50 times a latency) catch a broken run, not a
slow one, since that machine is shared. The ``*`` fallbacks catch only a figure wrong by
orders of magnitude. A site adds its own ``system:partition`` entries with tight bounds
(contrib/reframe/README.md).
'''

import os
import sys

import reframe as rfm
from reframe.core.builtins import parameter

# ReFrame loads a check file by its path: the library beside checks/ is put on sys.path.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))

from hpcprobelib.comm import hpcprobe_comm  # noqa: E402
from hpcprobelib.dense import hpcprobe_dgemm, hpcprobe_hpl  # noqa: E402
from hpcprobelib.ra import hpcprobe_ra  # noqa: E402
from hpcprobelib.stream import hpcprobe_stream  # noqa: E402


@rfm.simple_test
class hpcprobe_stream_single_check(hpcprobe_stream):
    descr = 'STREAM on one core'
    valid_systems = ['*']
    valid_prog_environs = ['*']
    time_limit = '2m'
    variant = 'single'
    num_ranks = parameter([1])
    array_bytes = parameter(['8M'])
    reference = {
        'local:default': {'triad': (50.0, -0.95, None, 'GB/s')},
        '*': {'triad': (1.0, -0.99, None, 'GB/s')},
    }


@rfm.simple_test
class hpcprobe_stream_star_check(hpcprobe_stream):
    descr = 'STREAM on every rank at once'
    valid_systems = ['*']
    valid_prog_environs = ['*']
    time_limit = '2m'
    variant = 'star'
    num_ranks = parameter([2])
    array_bytes = parameter(['8M'])
    reference = {
        'local:default': {'triad': (40.0, -0.95, None, 'GB/s')},
        '*': {'triad': (1.0, -0.99, None, 'GB/s')},
    }


@rfm.simple_test
class hpcprobe_comm_check(hpcprobe_comm):
    descr = 'IMB PingPong and Allreduce over 8 B to 1 MiB'
    valid_systems = ['*']
    valid_prog_environs = ['*']
    time_limit = '2m'
    function = parameter(['pingpong', 'allreduce'])
    message_sizes = '8,1K,64K,1M'
    time_per_size = 0.02
    reference = {
        'local:default': {
            'latency': (2.0, None, 49.0, 'us'),
            'bandwidth': (10000.0, -0.95, None, 'MB/s'),
        },
        '*': {
            'latency': (10.0, None, 99.0, 'us'),
            'bandwidth': (100.0, -0.99, None, 'MB/s'),
        },
    }


@rfm.simple_test
class hpcprobe_ra_check(hpcprobe_ra):
    descr = "RandomAccess, HPCC's MPI reference algorithm"
    valid_systems = ['*']
    valid_prog_environs = ['*']
    time_limit = '2m'
    variant = 'mpi'
    table_log2 = parameter([18])
    reference = {
        'local:default': {'gups': (0.02, -0.95, None, 'GUPS')},
        '*': {'gups': (0.001, -0.99, None, 'GUPS')},
    }


@rfm.simple_test
class hpcprobe_hpl_check(hpcprobe_hpl):
    descr = 'HPL, N = 1000 on a 1 x 2 grid'
    valid_systems = ['*']
    valid_prog_environs = ['*']
    time_limit = '2m'
    matrix_order = parameter([1000])
    block_size = 32
    reference = {
        'local:default': {'gflops': (10.0, -0.95, None, 'Gflop/s')},
        '*': {'gflops': (1.0, -0.99, None, 'Gflop/s')},
    }


@rfm.simple_test
class hpcprobe_dgemm_check(hpcprobe_dgemm):
    descr = 'DGEMM on every rank at once, N = 400'
    valid_systems = ['*']
    valid_prog_environs = ['*']
    time_limit = '2m'
    matrix_order = parameter([400])
    reference = {
        'local:default': {'gflops': (20.0, -0.95, None, 'Gflop/s')},
        '*': {'gflops': (1.0, -0.99, None, 'Gflop/s')},
    }
