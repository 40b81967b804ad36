"""The GPU family (docs/kernels/gpu.md): `hpcprobe gpu stream|ra|copy|info`, device memory
bandwidth (BabelStream's kernels), RandomAccess on a device table, and copies between host
and device; its tables, report section, headline figures and the main job's GPU steps."""
