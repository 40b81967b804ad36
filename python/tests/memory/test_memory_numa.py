"""NUMA in records and in the memory family (issue 40, item 5): real 2-rank records carry
each rank's core and NUMA domain; on this machine's one domain STREAM star and the
latency sweep say so and give nothing per domain; on a made-up two-domain sysfs tree
(HPCPROBE_SYSFS_ROOT) they give their figures per domain; and the per-domain tables
render from a made-up two-domain record, with nothing for a one-domain one."""

import os
from pathlib import Path

import pytest
from helpers import record_of
from test_integration_mem import run_records
from test_memory_tables import rendered, row_of

from hpcprobe.families.memory.numa import numa_tables, report_rows

KERNELS = ("copy", "scale", "add", "triad")


def sysfs_domains():
    """This machine's NUMA domains with CPUs, as the bench counts them; None unknown."""
    root = Path("/sys/devices/system/node")
    if not root.is_dir():
        return None
    found = [node for node in root.glob("node*") if node.name[4:].isdigit()
             and (node / "cpulist").is_file() and (node / "cpulist").read_text().strip()]
    return len(found) or None


def two_domain_tree(tmp_path):
    """CPU 0 in domain 0, every other CPU in domain 1, and a memory-only domain 2."""
    base = tmp_path / "sys"
    for node, cpus in (("node0", "0\n"), ("node1", "1-4095\n"), ("node2", "\n")):
        folder = base / "devices" / "system" / "node" / node
        folder.mkdir(parents=True)
        (folder / "cpulist").write_text(cpus)
    return {"HPCPROBE_SYSFS_ROOT": str(base)}


def check_placement(record, ranks):
    meta = record["metadata"]
    assert len(meta["rank_cores"]) == ranks and len(meta["rank_numa"]) == ranks
    assert len(meta["numa_domains_per_host"]) == len(meta["hosts"])
    cpus = os.cpu_count() or 1
    assert all(core is None or 0 <= core < cpus for core in meta["rank_cores"])


@pytest.mark.parametrize("family, variant", [("stream", "star"), ("mem", "latency")])
def test_one_domain_records_say_so(tmp_path, family, variant):
    (record,) = run_records(tmp_path, family, variant, 2, "--copies", "all")
    check_placement(record, 2)
    domains = sysfs_domains()
    meta = record["metadata"]
    assert meta["numa_domains_per_host"] == [domains]
    if domains == 1:
        assert meta["rank_numa"] == [0, 0]
        assert record["parameters"]["numa_domains"] == 1
        assert not any("numa" in series["name"] for series in record["series"])
        assert "copies_by_numa" not in record["counters"]
    assert record["parameters"]["first_touch"] == "rank_after_pinning"
    assert len(record["counters"]["cpu_numa"]) == 2
    counters = record["counters"]
    if "first_touch_pages_checked" in counters:   # the kernel said where the pages are
        assert counters["first_touch_pages_checked"] > 0
        assert counters["first_touch_pages_on_rank_domain"] == counters[
            "first_touch_pages_checked"]


def test_two_domain_tree_stream_star_per_domain(tmp_path):
    env = two_domain_tree(tmp_path)
    (record,) = run_records(tmp_path, "stream", "star", 2, extra_env=env)
    meta = record["metadata"]
    check_placement(record, 2)
    assert meta["numa_domains_per_host"] == [2]   # node2 has no CPU
    assert meta["rank_numa"] == [0 if core == 0 else 1 for core in meta["rank_cores"]]
    assert record["parameters"]["numa_domains"] == 2
    assert record["counters"]["cpus"] == [0, 1]   # pinned one per core
    assert record["counters"]["cpu_numa"] == [0, 1]
    assert record["counters"]["copies_by_numa"] == [1, 1]
    assert "first_touch_pages_checked" not in record["counters"]   # not the kernel's tree
    best = {s["name"]: s for s in record["series"]}
    for kernel in KERNELS:
        by_domain = best[f"star_{kernel}_best_bandwidth_by_numa"]
        assert by_domain["x"] == [0, 1] and by_domain["statistic"] == "mean"
        # one copy per domain: each domain's mean is that copy's best rate
        assert by_domain["y"] == best[f"star_{kernel}_best_bandwidth"]["y"]
    text = rendered([record])
    assert "per NUMA domain: 2 NUMA domains" in text
    assert row_of(text, "1")[1] == "1"


def test_two_domain_tree_latency_per_domain(tmp_path):
    env = two_domain_tree(tmp_path)
    (record,) = run_records(tmp_path, "mem", "latency", 2, "--copies", "all", extra_env=env)
    series = {s["name"]: s for s in record["series"]}
    many = series["time_per_access_many"]
    for domain in (0, 1):
        curve = series[f"time_per_access_many_numa{domain}"]
        assert curve["x"] == many["x"] and all(y > 0 for y in curve["y"])
    # the mean of the two domains' (one copy each) is the copies' mean
    for index, mean in enumerate(many["y"]):
        pair = [series[f"time_per_access_many_numa{d}"]["y"][index] for d in (0, 1)]
        assert sum(pair) / 2 == pytest.approx(mean, rel=1e-12)
    assert record["counters"]["copies_by_numa"] == [1, 1]


# --- made-up records: no launch ----------------------------------------------------------

def two_domain_stream():
    record = record_of("stream-star")
    record["parameters"].update(numa_domains=2, first_touch="rank_after_pinning")
    record["counters"].update(cpu_numa=[0, 1, 1], copies_by_numa=[1, 2])
    for index, kernel in enumerate(KERNELS):
        record["series"].append({
            "name": f"star_{kernel}_best_bandwidth_by_numa", "x_name": "numa_domain",
            "x_unit": "1", "unit": "B/s", "statistic": "mean", "x": [0, 1],
            "y": [(10 + index) * 1e9, (20 + index) * 1e9]})
    return record


def test_stream_per_domain_table():
    text = rendered([two_domain_stream()])
    assert "hpcprobe stream star per NUMA domain: 2 NUMA domains" in text
    assert row_of(text, "0") == ["0", "1", "10", "11", "12", "13", "13"]
    assert row_of(text, "1") == ["1", "2", "20", "21", "22", "23", "46"]  # sum: 2 x 23


def test_stream_per_domain_copies_unknown_when_counter_does_not_match():
    record = two_domain_stream()
    record["counters"]["copies_by_numa"] = [1, "two"]
    text = rendered([record])
    assert row_of(text, "1")[:2] == ["1", "?"] and row_of(text, "1")[-1] == "—"


def test_latency_per_domain_table():
    record = record_of("mem-latency")
    record["parameters"]["numa_domains"] = 2
    record["counters"]["copies_by_numa"] = [1, 1]
    one = next(s for s in record["series"] if s["name"] == "time_per_access_one")
    for domain, scale in ((0, 1.0), (1, 2.0)):
        record["series"].append({
            "name": f"time_per_access_many_numa{domain}", "x_name": "working_set_bytes",
            "x_unit": "B", "unit": "s", "statistic": "mean", "x": list(one["x"]),
            "y": [y * scale for y in one["y"]]})
    text = rendered([record])
    assert "hpcprobe mem latency per NUMA domain: 2 NUMA domains" in text
    assert "copies per domain: 1, 1" in text
    first = row_of(text, "1 KiB")
    assert first[-2] != first[-1]   # the domains' own columns
    rows = report_rows([record])
    assert [row[1] for row in rows] == [0, 1] and [row[2] for row in rows] == [1, 1]


def test_one_domain_records_have_no_per_domain_table():
    for name in ("stream-star", "mem-latency"):
        record = record_of(name)
        record["parameters"]["numa_domains"] = 1
        assert numa_tables(record) == [] and report_rows([record]) == []
    assert "per NUMA domain" not in rendered([record_of("stream-star")])
