"""What CMake asks the build's Python (cmake/hpcp_python_env.cmake), as one JSON object:

pypi_mpicc           the mpicc of PyPI's MPICH where this Python sees it installed, else ""
scripts_to_prefix    the environment's root (the data directory) from its scripts directory
scripts_to_platlib   its packages directory from its scripts directory

pip installs hpcprobe-bench into the scripts directory and the MPICH and scipy-openblas32
wheels beside it in the same scheme, so these relative paths hold wherever the package is
installed; the build's own copies may be in a temporary build environment.
"""

import json
import os
import sysconfig
from importlib import metadata


def pypi_mpicc() -> str:
    try:
        files = metadata.distribution("mpich").files or []
    except metadata.PackageNotFoundError:
        return ""
    for entry in files:
        if entry.name == "mpicc" and entry.parent.name == "bin":
            path = os.path.realpath(entry.locate())
            return path if os.path.isfile(path) else ""
    return ""


def main() -> None:
    scripts = sysconfig.get_path("scripts")
    print(json.dumps({
        "pypi_mpicc": pypi_mpicc(),
        "scripts_to_prefix": os.path.relpath(sysconfig.get_path("data"), scripts),
        "scripts_to_platlib": os.path.relpath(sysconfig.get_path("platlib"), scripts),
    }))


main()
