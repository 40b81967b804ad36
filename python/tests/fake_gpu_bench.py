"""A stand-in for hpcprobe-bench's `gpu` benchmark on a node with one made-up device, so
that the GPU family's Python side can be tested on machines without a GPU.

As the bench (HPCPROBE_BENCH points at a wrapper that runs this file):
  gpu info                        one JSON line with FAKE_GPU_DEVICES devices (default 1);
                                  with 0, the bench's one-line refusal and exit status 2
  gpu stream|ra|copy ... --out F  appends made-up records (one per kind and host memory
                                  for copy), valid against schema/result-v1.json
`describe --json` is the real bench's (FAKE_REAL_BENCH), not recorded.
FAKE_GPU_NAME names the devices; FAKE_ARGV_FILE collects each call's argv and FAKE_NP (set
by the tests' launcher template) as JSON lines.
The records are also built by the tests themselves (gpu_record)."""

import copy
import json
import os
import sys
from pathlib import Path

DATA = Path(__file__).parent / "data"
NO_DEVICE = ("hpcprobe-bench: gpu: no CUDA device on this node (cudaGetDeviceCount: no "
             "CUDA-capable device is detected)")
GB = 1e9
SIZES = [4096.0, 65536.0, 1048576.0]
NOMINAL = 4.8e12
_STREAM_RATES = {"copy": 4.0e12, "mul": 3.9e12, "add": 4.1e12, "triad": 4.2e12, "dot": 3.6e12}
_COPY_RATES = {"h2d": 50 * GB, "d2h": 48 * GB, "d2d": 2000 * GB, "p2p": 300 * GB}


def device(index, name):
    return {"index": index, "name": name, "pci_bus_id": f"0000:{0x41 + index:02x}:00.0",
            "compute_capability": "9.0", "multiprocessors": 132, "memory_bytes": 150 << 30,
            "memory_free_bytes": 140 << 30, "l2_bytes": 60 << 20,
            "memory_clock_hz": 2.619e9, "bus_width_bits": 6144,
            "nominal_bandwidth": NOMINAL, "sm_clock_hz": 1.98e9, "ecc": True,
            "driver_version": 13000, "runtime_version": 13000,
            # gen5 x16 on the first device; the second's sysfs says nothing
            "pcie_transfer_rate": 32e9 if index == 0 else 0.0,
            "pcie_width": 16 if index == 0 else 0,
            "pcie_bandwidth": 32e9 * 16 * 128 / 130 / 8 if index == 0 else 0.0}


def _base(variant, algorithm, name, device_index=0, devices=1):
    record = copy.deepcopy(json.loads((DATA / "stream-single.json").read_text()))
    record.update(benchmark="gpu", variant=variant, algorithm=algorithm, series=[],
                  counters={}, notes=[])
    record["parameters"] = {
        "device": device_index, "devices": devices, "device_name": name,
        "compute_capability": "9.0", "l2_bytes": 60 << 20, "memory_bytes": 150 << 30,
        "nominal_bandwidth": NOMINAL, "driver_version": 13000, "runtime_version": 13000,
        "ecc": True}
    record["metadata"]["launch_id"] = os.environ.get("HPCPROBE_LAUNCH_ID", "test")
    record["metadata"]["command_line"] = ["hpcprobe-bench", "gpu", variant]
    record["validation"] = {"verdict": "passed", "method": "made up", "error": 0.0,
                            "error_unit": "1", "tolerance": 1e-13}
    return record


def stream_record(name="Fake GPU", device_index=0, devices=1, scale=1.0):
    record = _base("stream", "cuda", name, device_index, devices)
    record["parameters"].update(array_elements=1 << 19, array_bytes=4 << 20,
                                size_rule="--array-bytes")
    record["metrics"] = [{"name": f"{op}_bandwidth", "unit": "B/s", "higher_is_better": True,
                          "samples": [rate * scale * f for f in (0.97, 1.0, 0.98)]}
                         for op, rate in _STREAM_RATES.items()]
    record["value"] = {"metric": "triad_bandwidth", "statistic": "max",
                       "value": _STREAM_RATES["triad"] * scale, "unit": "B/s"}
    return record


def ra_record(name="Fake GPU", algorithm="atomic", wrong=0):
    record = _base("ra", algorithm, name)
    words = 1 << 16
    record["parameters"].update(table_log2=16, table_words=words, table_bytes=8 * words,
                                updates=4 * words, streams=1024, updates_per_stream=256,
                                lookahead_per_stream=1, size_rule="--table-log2")
    rates = [20e9, 21e9, 19e9]
    record["metrics"] = [{"name": "update_rate", "unit": "updates/s", "samples": rates,
                          "higher_is_better": True}]
    record["value"] = {"metric": "update_rate", "statistic": "median", "value": 20e9,
                       "unit": "updates/s"}
    record["counters"] = {"wrong_words": wrong}
    record["validation"].update(error=wrong / words, tolerance=0.01,
                                verdict="passed" if wrong <= words // 100 else "failed")
    return record


def copy_record(kind, host_memory, name="Fake GPU"):
    record = _base("copy", kind, name)
    record["parameters"].update(host_memory=host_memory, peer=1 if kind == "p2p" else -1,
                                max_bytes=SIZES[-1])
    rate = _COPY_RATES[kind] * (0.5 if host_memory == "pageable" else 1.0)
    rates = [rate * size / (size + 65536) for size in SIZES]
    times = [size / r for size, r in zip(SIZES, rates)]
    record["series"] = [
        {"name": "bandwidth", "x_name": "bytes", "x_unit": "B", "unit": "B/s",
         "statistic": "median", "x": SIZES, "y": rates},
        {"name": "time", "x_name": "bytes", "x_unit": "B", "unit": "s", "statistic": "min",
         "x": SIZES, "y": times}]
    record["metrics"] = [
        {"name": "bandwidth", "unit": "B/s", "samples": [rates[-1]], "higher_is_better": True},
        {"name": "latency", "unit": "s", "samples": [times[0]], "higher_is_better": False}]
    record["value"] = {"metric": "bandwidth", "statistic": "median", "value": rates[-1],
                       "unit": "B/s"}
    return record


def copy_records(kinds="h2d,d2h,d2d", host_memory="both", name="Fake GPU"):
    memories = ("pinned", "pageable") if host_memory == "both" else (host_memory,)
    found = []
    for kind in kinds.split(","):
        for memory in ("device",) if kind in ("d2d", "p2p") else memories:
            found.append(copy_record(kind, memory, name))
    return found


def _option(args, name, default):
    return args[args.index(name) + 1] if name in args else default


def main():
    args = sys.argv[1:]
    if args[:1] == ["describe"] and os.environ.get("FAKE_REAL_BENCH"):
        # what the real bench declares: the parsers are built from it (describe.py)
        os.execv(os.environ["FAKE_REAL_BENCH"], [os.environ["FAKE_REAL_BENCH"], *args])
    if os.environ.get("FAKE_ARGV_FILE"):
        with open(os.environ["FAKE_ARGV_FILE"], "a") as stream:
            stream.write(json.dumps({"argv": args, "np": os.environ.get("FAKE_NP")}) + "\n")
    count = int(os.environ.get("FAKE_GPU_DEVICES", "1"))
    name = os.environ.get("FAKE_GPU_NAME", "Fake GPU")
    if args[:1] != ["gpu"]:
        print("hpcprobe-bench: the stand-in knows gpu only", file=sys.stderr)
        sys.exit(2)
    if count == 0:
        print(NO_DEVICE, file=sys.stderr)
        sys.exit(2)
    if args[1] == "info":
        print(json.dumps({"build": "cuda 13.0",
                          "devices": [device(i, name) for i in range(count)]}))
        return
    records = {"stream": lambda: [stream_record(name)],
               "ra": lambda: [ra_record(name, _option(args, "--algo", "atomic"))],
               "copy": lambda: copy_records(_option(args, "--kinds", "h2d,d2h,d2d"),
                                            _option(args, "--host-memory", "both"), name)}
    with open(_option(args, "--out", None), "a") as stream:
        for record in records[args[1]]():
            stream.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
