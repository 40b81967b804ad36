'''ReFrame configuration for one local machine: the local scheduler, mpiexec, one
partition and one environment (contrib/reframe/README.md).

``hpcprobe`` and ``hpcprobe-bench`` must be on ``PATH`` (the venv's ``bin`` first), and
so must the ``mpiexec`` of the MPI hpcprobe was built with.
'''

site_configuration = {
    'systems': [
        {
            'name': 'local',
            'descr': 'this machine, running hpcprobe through mpiexec',
            'hostnames': ['.*'],
            'modules_system': 'nomod',
            'partitions': [
                {
                    'name': 'default',
                    'descr': 'every core of this machine',
                    'scheduler': 'local',
                    'launcher': 'mpiexec',
                    'environs': ['hpcprobe'],
                    # Benchmarks that share the cores disturb each other: one at a time.
                    'max_jobs': 1,
                }
            ],
        }
    ],
    'environments': [
        {
            'name': 'hpcprobe',
            'target_systems': ['local'],
            'env_vars': [
                # Open MPI refuses to run as root unless told; MPICH ignores these.
                ['OMPI_ALLOW_RUN_AS_ROOT', '1'],
                ['OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1'],
                # Ranks started by ReFrame's plain `mpiexec -n N` are bound one per core
                # (MPICH's hydra, Open MPI), as hpcprobe binds the ranks it starts:
                # unbound ranks that share a core measured HPL 2-10 times slower here.
                ['HYDRA_BINDING', 'core'],
                ['OMPI_MCA_hwloc_base_binding_policy', 'core'],
            ],
        }
    ],
}
