"""The contention family: `hpcprobe contention`, `topology` and `simulate`."""
