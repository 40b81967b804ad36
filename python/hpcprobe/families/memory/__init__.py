"""The memory family: `hpcprobe stream` and `hpcprobe mem`."""
