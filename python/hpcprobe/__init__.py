"""hpcprobe: what an HPC machine delivers, measured by hpcprobe-bench and reported here."""

from importlib import metadata

try:
    __version__ = metadata.version("hpcprobe")
except metadata.PackageNotFoundError:  # running from a source tree, not installed
    __version__ = "0+unknown"
