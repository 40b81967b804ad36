"""Made-up records for the limits layer's tests: the `peak` family's records (peak flops,
bandwidth and clock, as docs/limits.md reads them; the family's C is written beside this)
and the records whose limits they give."""

from typing import Dict, List, Optional, Sequence

CORES = 4


def base(benchmark: str, variant: str, ranks: int = 1, nodes: int = 1,
         rank_hosts: Optional[List[int]] = None, hosts: Sequence[str] = ("n1",),
         algorithm: str = "test", cpu: str = "Test CPU") -> Dict:
    return {
        "schema_version": "1.2", "benchmark": benchmark, "variant": variant,
        "algorithm": algorithm, "status": "ok",
        "started_at": "2026-11-29T00:00:00Z", "finished_at": "2026-11-29T00:00:01Z",
        "parameters": {}, "metrics": [], "series": [], "counters": {}, "notes": [],
        "layout": {"ranks": ranks, "threads_per_rank": 1, "nodes": nodes,
                   "ranks_per_node_max": ranks // nodes},
        "value": {}, "validation": {"verdict": "passed", "method": "made up", "error": 0,
                       "tolerance": 0},
        "compliant": True,
        "metadata": {"hosts": list(hosts), "cpu_model": cpu, "cores_per_node": CORES,
                     "rank_hosts": rank_hosts if rank_hosts is not None else [0] * ranks,
                     "launch_id": f"{benchmark}-{variant}-1", "memory_bytes_per_node": 1 << 34,
                     "hugepages": {}, "compiler": "cc", "compiler_flags": "-O2",
                     "mpi_library": "MPI", "hpcprobe_version": "0.1.0", "git_commit": "abc",
                     "command_line": ["hpcprobe-bench"]}}


def metric(record: Dict, name: str, unit: str, samples: Sequence[float],
           headline: bool = False) -> Dict:
    record["metrics"].append({"name": name, "unit": unit, "samples": list(samples)})
    if headline or not record["value"]:
        record["value"] = {"metric": name, "statistic": "median", "value": samples[0],
                           "unit": unit}
    return record


def series(record: Dict, name: str, unit: str, xs: Sequence[float],
           ys: Sequence[float]) -> Dict:
    record["series"].append({"name": name, "x_name": "message_bytes", "x_unit": "B",
                             "unit": unit, "statistic": "median", "x": list(xs),
                             "y": list(ys)})
    return record


def peak_flops(variant: str, rate: float, theoretical: Optional[float], ranks: int = 1,
               per_rank: Optional[float] = None, **where) -> Dict:
    record = base("peak", f"flops-{variant}", ranks, algorithm="avx2", **where)
    record["parameters"] = {"precision": "double", "cores_per_node": CORES,
                            "peak_theoretical": theoretical,
                            "peak_theoretical_node": None if theoretical is None else
                            theoretical / ranks * CORES}
    metric(record, "flop_rate", "flop/s", [rate * 0.9, rate])
    return metric(record, "flop_rate_per_rank", "flop/s", [per_rank or rate / ranks])


def peak_bandwidth(variant: str, figures: Dict[str, float], ranks: int = 1,
                   working_sets: Optional[Dict[str, float]] = None, **where) -> Dict:
    """figures: <kernel>_bandwidth_<level> -> B/s (the best sample)."""
    record = base("peak", f"bandwidth-{variant}", ranks, algorithm="avx2", **where)
    for name, value in figures.items():
        metric(record, name, "B/s", [value * 0.8, value])
    for level, size in (working_sets or {}).items():
        record["parameters"][f"working_set_bytes_{level}"] = size
    return record


def peak_clock(memory: Optional[float], links: Dict[str, float], **where) -> Dict:
    record = base("peak", "clock", 1, algorithm="add-chain", **where)
    record["parameters"] = {
        "memory_bandwidth_theoretical": memory,
        "memory_bandwidth_source": "4 DIMMs x 3.2e9 T/s x 64 bit" if memory else
        "no SMBIOS memory device readable", "links": len(links),
        **{f"link_rate_{name}": rate for name, rate in links.items()}}
    return metric(record, "clock_rate", "Hz", [3e9])


def pingpong(bandwidth: float, latency: float, ranks: int = 2, **where) -> Dict:
    """A PingPong whose time is latency + size / bandwidth."""
    record = base("comm", "pingpong", ranks, algorithm="imb", **where)
    sizes = [0.0] + [float(1 << k) for k in range(10, 23)]
    times = [latency + size / bandwidth for size in sizes]
    series(record, "time_median", "s", sizes, times)
    series(record, "bandwidth", "B/s", sizes, [size / t for size, t in zip(sizes, times)])
    record["parameters"] = {"function": "PingPong", "group_ranks": ranks, "buffers": "host"}
    return metric(record, "call_time", "s", [times[-1]])


def collective(function: str, sizes: Sequence[float], times: Sequence[float],
               ranks: int = 2, **where) -> Dict:
    record = base("comm", function, ranks, algorithm="imb", **where)
    series(record, "time_median", "s", sizes, times)
    record["parameters"] = {"function": function, "group_ranks": ranks, "buffers": "host"}
    return metric(record, "call_time", "s", [times[-1]])


def flops_record(benchmark: str, variant: str, rate: float, ranks: int = 1,
                 n: int = 1000, **where) -> Dict:
    record = base(benchmark, variant, ranks, **where)
    record["parameters"] = {"n": n, "blas_threads": 1}
    return metric(record, "flop_rate", "flop/s", [rate])


def stream(variant: str, triad: float, copy: float, copies: int = 1, **where) -> Dict:
    """triad and copy: the best sample; star's samples are per copy (the mean)."""
    record = base("stream", variant, copies, **where)
    record["parameters"] = {"copies": copies}
    metric(record, f"{variant}_copy_bandwidth", "B/s", [copy * 0.9, copy])
    return metric(record, f"{variant}_triad_bandwidth", "B/s", [triad * 0.9, triad],
                  headline=True)


def fft(variant: str, rate: float, points: int, ranks: int = 1, **where) -> Dict:
    record = base("fft", variant, ranks, **where)
    record["parameters"] = {"m": points}
    return metric(record, "flop_rate", "flop/s", [rate])


def ra(variant: str, rate: float, table_bytes: float, ranks: int = 1, **where) -> Dict:
    record = base("ra", variant, ranks, **where)
    record["parameters"] = {"table_bytes": table_bytes}
    metric(record, "update_rate", "updates/s", [rate / ranks])
    return metric(record, "update_rate_sum", "updates/s", [rate])


def pairs(within: Optional[float], across: Optional[float], ranks: int = 2,
          **where) -> Dict:
    record = base("pairs", "bandwidth", ranks, algorithm="tournament", **where)
    if within is not None:
        metric(record, "intra_node_bandwidth", "B/s", [within])
    if across is not None:
        metric(record, "inter_node_bandwidth", "B/s", [across * 0.5, across, across * 1.5])
    return record
