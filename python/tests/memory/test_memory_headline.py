"""The memory rows of the run's headline: the load latency of each plateau the sweep found,
named for the sysfs cache it stands for, DRAM's where the sweep reached past the caches,
and a cache no plateau stood for shown as not seen (issue 40: a DRAM-like time had been
labelled L3 from the size sysfs gave). Hand-written records, no launch."""

import math

from helpers import record_of

from hpcprobe.families.memory.headline import NOT_SEEN, latency_levels, memory_headline
from hpcprobe.suite.headline import change, headline_rows

CACHES = {"cache_l1d_bytes": 32768, "cache_l2_bytes": 1 << 20, "cache_l3_bytes": 32 << 20}


def latency_record(plateaus, caches=CACHES):
    """A mem latency record with these (working set, latency) plateaus."""
    return {"benchmark": "mem", "variant": "latency", "parameters": dict(caches),
            "validation": {"verdict": "passed"},
            "series": [{"name": "plateau_latency", "x": [x for x, _ in plateaus],
                        "y": [y for _, y in plateaus]}]}


def test_the_hand_written_sweep_names_each_plateau_and_dram():
    levels = latency_levels(record_of("mem-latency"))
    assert [(key, latency) for key, _, latency in levels] == [
        ("latency.L1d", 1.2e-09), ("latency.L2", 4.1e-09), ("latency.L3", 1.45e-08),
        ("latency.DRAM", 8.8e-08)]
    assert levels[2][1] == "load latency, L3 (plateau to 16 MiB)"


def test_a_cache_without_a_plateau_is_not_seen_not_a_latency():
    # The 16-core node of issue 40: plateaus at the L1 and L2, then memory; no L3 plateau.
    record = latency_record([(32768, 1.1e-9), (2 << 20, 4e-9), (1 << 30, 1.93e-7)],
                            dict(CACHES, cache_l3_bytes=64 << 20))
    levels = latency_levels(record)
    assert [key for key, _, _ in levels] == ["latency.L1d", "latency.L2", "latency.DRAM",
                                             "latency.L3"]
    assert levels[2][2] == 1.93e-7 and levels[3] == (
        "latency.L3", "load latency, L3 (64 MiB by sysfs)", None)
    figures = {figure.key: figure for figure in memory_headline([record])}
    assert figures["latency.L3"].samples == () and math.isnan(figures["latency.L3"].value)
    row = next(row for row in headline_rows(list(figures.values()))
               if row[1].startswith("load latency, L3"))
    assert row[2:4] == [NOT_SEEN, ""]
    assert change(figures["latency.L3"], figures["latency.L3"]) is None


def test_a_sweep_that_stops_inside_the_caches_has_no_dram_row():
    # The tiny main job sweeps to 1 MiB: its last plateau is a cache, not memory.
    record = latency_record([(16384, 1.2e-9), (1 << 20, 3.9e-9)])
    assert [key for key, _, _ in latency_levels(record)] == [
        "latency.L1d", "latency.L2", "latency.L3"]


def test_a_plateau_no_cache_stands_for_is_numbered():
    record = latency_record([(32768, 1e-9), (256 << 10, 2e-9), (1 << 20, 4e-9),
                             (32 << 20, 1.5e-8), (1 << 30, 9e-8)])
    keys = [key for key, _, _ in latency_levels(record)]
    assert keys == ["latency.L1d", "latency.plateau2", "latency.L2", "latency.L3",
                    "latency.DRAM"]
