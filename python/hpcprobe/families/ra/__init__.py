"""The RandomAccess family: `hpcprobe ra` (variants, sweep, studies), `hpcprobe model ra`."""
