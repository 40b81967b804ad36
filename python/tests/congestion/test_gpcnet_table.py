"""`--mode gpcnet` records read back in GPCNeT's layout, from a made-up record: the three
tables in GPCNeT's order and names, its units (usec, MiB/s/rank), the Avg and 99% as
GPCNeT computes them (the bandwidth Avg over rings, the 99% from the worse side), the CIF
of both with an X; a default-mode record keeps hpcprobe's table."""

from rich.console import Console

from hpcprobe.families.congestion import gpcnet
from hpcprobe.families.congestion.tables import congestion_tables

MIB = 1024.0 * 1024.0
US = 1e-6


def gpcnet_record(**parameters):
    samples = {
        "latency_isolated": [2 * US] * 98 + [10 * US] * 2,
        "latency_gpcnet": [4 * US] * 100,
        # rank 0's rings: (1, 3) MiB/s -> 1.5 (bytes over time), (2, 2) -> 2; rank 1's: 2, 2
        "bandwidth_isolated": [v * MIB for v in (1, 3, 2, 2, 2, 2, 2, 2)],
        "bandwidth_gpcnet": [1 * MIB] * 8,
        "allreduce_isolated": [10 * US] * 4,
        "allreduce_gpcnet": [30 * US] * 4,
    }
    params = {"mode": "gpcnet", "canary_placement": "random",
              "canaries": "latency,bandwidth,allreduce",
              "congestors": "alltoall,incast,put-incast,get-bcast", "bandwidth_bytes": 131072,
              "bandwidth_samples": 4, "bandwidth_samples_kept_per_rank": 4,
              "bandwidth_steps_per_ring": 2, "role_unit": "node", "canary_units": 2,
              "congestor_units": 8, "congestor_groups": "alltoall:2,incast:2,put-incast:2,"
              "get-bcast:2"}
    params.update(parameters)
    return {"benchmark": "congestion", "parameters": params,
            "metrics": [{"name": k, "unit": "s", "samples": v} for k, v in samples.items()],
            "counters": {"congestor_bytes_alltoall": [0, 4096]},
            "validation": {"verdict": "passed", "error": 0, "tolerance": 0}}


def text_of(records):
    console = Console(width=200, record=True)
    for table in congestion_tables(records):
        console.print(table)
    return console.export_text()


def row(section, name):
    """The cells of the one line of `section` that names `name` (heading or body)."""
    (line,) = [line for line in section.splitlines() if name in line and line[:1] in "│┃"]
    return [cell.strip() for cell in line.replace("┃", "│").split("│")[1:-1]]


def test_the_three_tables_in_gpcnets_order_names_and_units():
    text = text_of([gpcnet_record()])
    titles = [gpcnet.ISOLATED_TITLE, gpcnet.KEY_RESULTS_TITLE, gpcnet.CIF_TITLE]
    at = [text.index(title) for title in titles]
    assert at == sorted(at)
    isolated, loaded = text[at[0]:at[1]], text[at[1]:at[2]]
    cifs = text[at[2]:text.index("congestor traffic")]
    assert "2 node(s) running Network Tests, 8 node(s) running Congestion Tests" in text
    assert "canaries placed random" in text
    for section in (isolated, loaded):
        assert row(section, "Name") == ["Name", "Avg", "99%", "Units"]
    assert row(cifs, "Name") == ["Name", "Avg", "99%"]
    # latency: mean 2.16 us, p99 10 us alone; 4 and 4 congested
    assert row(isolated, "RR Two-sided Lat (8 B)")[1:] == ["2.2", "10.0", "usec"]
    assert row(loaded, "RR Two-sided Lat (8 B)")[1:] == ["4.0", "4.0", "usec"]
    # bandwidth: the mean of the rings' rates, 1.875 (the plain mean would be 2.0); the
    # 99% from the slow side, the 1st percentile of the steps, 1.07
    assert row(isolated, "RR Two-sided BW+Sync (131072 B)")[1:] == ["1.9", "1.1",
                                                                     "MiB/s/rank"]
    assert row(isolated, "Multiple Allreduce (8 B)")[1:] == ["10.0", "10.0", "usec"]
    assert row(loaded, "Multiple Allreduce (8 B)")[1:] == ["30.0", "30.0", "usec"]
    # CIF: congested / isolated for times, isolated / congested for bandwidth
    assert row(cifs, "RR Two-sided Lat (8 B)")[1:] == ["1.9X", "0.4X"]
    assert row(cifs, "RR Two-sided BW+Sync (131072 B)")[1:] == ["1.9X", "1.1X"]
    assert row(cifs, "Multiple Allreduce (8 B)")[1:] == ["3.0X", "3.0X"]
    assert "CIF per canary and congestor" not in text


def test_the_bandwidth_avg_falls_back_to_steps_when_the_rings_are_not_whole():
    # thinned samples (kept != taken): every step is its own ring
    record = gpcnet_record(bandwidth_samples=400)
    figures = gpcnet.figures(record, "bandwidth", "isolated")
    assert abs(figures.avg - 2.0) < 1e-12
    assert gpcnet.figures(gpcnet_record(), "bandwidth", "isolated").avg == 1.875


def test_missing_samples_read_as_dashes_and_a_default_record_keeps_its_table():
    record = gpcnet_record()
    record["metrics"] = [m for m in record["metrics"] if m["name"] != "allreduce_gpcnet"]
    text = text_of([record])
    cifs = text[text.index(gpcnet.CIF_TITLE):]
    assert row(cifs, "Multiple Allreduce (8 B)")[1:] == ["—", "—"]
    default = gpcnet_record(mode="hpcprobe", congestors="incast")
    default["metrics"] = [{"name": "latency_isolated", "samples": [1e-6]},
                          {"name": "latency_incast", "samples": [2e-6]}]
    text = text_of([default])
    assert "CIF per canary and congestor" in text and gpcnet.KEY_RESULTS_TITLE not in text
