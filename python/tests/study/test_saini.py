"""Paper 003's studies (saini-*): rows() on hand-made records, the accumulated bandwidths,
their ratios to HPL, HPL's efficiency against the peak, the balance ratios of Table 2 and
Fig. 5, and the Alltoall ~ G-FFT ~ random ring correlation, each against a hand
computation; a failed record and one missing its fields give None."""

import copy

import pytest
from limits_data import base, metric, peak_flops, series

from hpcprobe.families.comm import studies_saini as imb
from hpcprobe.families.hpcc import saini_figures as fig
from hpcprobe.families.hpcc import studies_saini as hpcc
from hpcprobe.study.declare import Measured, Point, StudyContext
from hpcprobe.study.efficiency import pearson
from hpcprobe.study.papers import item_of
from hpcprobe.study.records import usable

MB = 1 << 20


def study(studies, name):
    return next(found for found in studies if found.name == name)


def rows_of(studies, name, *points):
    """rows() of a study on (P, records) points, checked against its item's columns."""
    chosen = study(studies, name)
    rows = chosen.rows([Measured(Point(p, ()), tuple(records)) for p, records in points])
    keys = {column.key for column in item_of(chosen.paper, chosen.item).columns}
    assert all(set(row) <= keys for row in rows)
    return rows


def hpl(rate, ranks=4):
    return metric(base("hpl", "mpi", ranks), "flop_rate", "flop/s", [rate])


def beff(per_process_bandwidth, latency=5e-6, ranks=4):
    record = base("beff", "hpcc", ranks)
    metric(record, "random_ring_bandwidth", "B/s", [1.0, per_process_bandwidth],
           headline=True)
    return metric(record, "random_ring_latency", "s", [latency])


def stream_star(copies, ranks=4):
    record = metric(base("stream", "star", ranks), "star_triad_bandwidth", "B/s", [1e10])
    return series(record, "star_copy_best_bandwidth", "B/s", range(len(copies)), copies)


def failed(record):
    broken = copy.deepcopy(record)
    broken["validation"]["verdict"] = "failed"
    return broken


# --- Figs. 1-4: accumulated bandwidths and their ratios to HPL ---------------------------

def test_random_ring_accumulated_and_its_ratio_to_hpl():
    # 2 GB/s per process (HPCC's figure: the last sample) x 4 = 8 GB/s; over 40 Gflop/s:
    # 8e9 / 4e10 = 0.2 B/flop = 200 B/kflop.
    records = [beff(2e9), hpl(4e10)]
    assert rows_of(hpcc.STUDIES, "saini-fig1", (4, records)) == [
        {"procs": 4, "hpl": pytest.approx(40.0), "rr_acc": pytest.approx(8.0)}]
    assert rows_of(hpcc.STUDIES, "saini-fig2", (4, records)) == [
        {"procs": 4, "hpl": pytest.approx(40.0), "rr_ratio": pytest.approx(200.0)}]


def test_stream_copy_accumulated_ratio_and_hpl_efficiency():
    # Copies 10 + 12 + 9 + 11 GB/s = 42 GB/s; / 20 Gflop/s = 2.1 B/flop. Peak 10 Gflop/s
    # per core x 4 cores (CORES of limits_data) = 40 Gflop/s; HPL 20 Gflop/s: 50 %.
    records = [stream_star([1e10, 1.2e10, 0.9e10, 1.1e10]), hpl(2e10),
               peak_flops("single", 9e9, 1e10)]
    [row] = rows_of(hpcc.STUDIES, "saini-fig4", (4, records))
    assert row == {"procs": 4, "hpl": pytest.approx(20.0), "stream_acc": pytest.approx(42.0),
                   "stream_ratio": pytest.approx(2.1), "hpl_efficiency": pytest.approx(50.0)}
    # Eight ranks on the node's 4 cores: the peak is still 4 cores', not 8.
    oversubscribed = [hpl(2e10, ranks=8), peak_flops("single", 9e9, 1e10)]
    assert fig.hpl_efficiency(oversubscribed) == pytest.approx(0.5)


def test_missing_fields_and_failed_records_give_none():
    no_metrics = base("beff", "hpcc", 4)
    rows = rows_of(hpcc.STUDIES, "saini-fig2", (4, [no_metrics, hpl(4e10)]),
                   (8, [beff(2e9, ranks=8), failed(hpl(4e10, ranks=8))]),
                   (16, [{"benchmark": "beff", "status": "ok"}, "not a record"]))
    assert rows == [{"procs": 4, "hpl": pytest.approx(40.0), "rr_ratio": None},
                    {"procs": 8, "hpl": None, "rr_ratio": None},
                    {"procs": 16, "hpl": None, "rr_ratio": None}]
    crashed = dict(hpl(4e10), status="failed")
    assert usable([crashed]) == []
    assert rows_of(hpcc.STUDIES, "saini-fig1", (4, [beff(2e9), crashed])) == [
        {"procs": 4, "hpl": None, "rr_acc": pytest.approx(8.0)}]
    # No peak record, or one of another CPU: no efficiency.
    assert fig.hpl_efficiency([hpl(2e10)]) is None
    assert fig.hpl_efficiency([hpl(2e10), peak_flops("single", 9e9, 1e10, cpu="Other")]) is None
    assert fig.stream_copy_accumulated([stream_star([1e10, -1.0])]) is None


def test_ratio_and_accumulated_refuse_what_is_not_positive():
    assert fig.accumulated(2.5, 4) == 10.0
    assert fig.accumulated(None, 4) is None and fig.accumulated(2.5, 0) is None
    assert fig.ratio(3.0, 4.0, 1000.0) == 750.0
    assert fig.ratio(3.0, 0.0) is None and fig.ratio(None, 4.0) is None


# --- Fig. 5 and Table 2: the balance ratios ---------------------------------------------

def balance_records(ranks=4, hpl_rate=4e10):
    dgemm = metric(base("dgemm", "star", ranks), "flop_rate", "flop/s", [1.5e10])
    ptrans = metric(base("ptrans", "mpi", ranks), "bandwidth", "B/s", [2e9])
    return [dgemm, ptrans, stream_star([1e10, 1.2e10, 0.9e10, 1.1e10], ranks),
            beff(2e9, 5e-6, ranks), hpl(hpl_rate, ranks)]


def test_table2_ratios_by_hand():
    # HPL 0.04 TF/s; EP-DGEMM 15 Gflop/s x 4 / 40 = 1.5; PTRANS 2 / 40 = 0.05 B/flop;
    # STREAM 42 / 40 = 1.05 B/flop; random ring 8 / 40 = 0.2 B/flop; 1 / 5 µs = 0.2 /µs;
    # no FFT nor RandomAccess record: None.
    [row] = rows_of(hpcc.STUDIES, "saini-table2", (4, balance_records()))
    assert row == {"procs": 4, "ghpl": pytest.approx(0.04), "dgemm_ratio": pytest.approx(1.5),
                   "fft_ratio": None, "ptrans_ratio": pytest.approx(0.05),
                   "stream_ratio": pytest.approx(1.05), "rr_ratio": pytest.approx(0.2),
                   "rr_latency_inv": pytest.approx(0.2), "ra_ratio": None}


def test_fig5_normalises_each_ratio_to_the_best_rank_count():
    # P = 4 as above; P = 8 with HPL 80 Gflop/s and no PTRANS: ratios over HPL halve
    # where the numerator does not grow (DGEMM 15 x 8 / 80 = 1.5 is unchanged).
    eight = [record for record in balance_records(8, 8e10) if record["benchmark"] != "ptrans"]
    rows = rows_of(hpcc.STUDIES, "saini-fig5", (4, balance_records()), (8, eight))
    assert rows[0]["ghpl_norm"] == pytest.approx(0.5) and rows[1]["ghpl_norm"] == 1.0
    assert rows[0]["dgemm_norm"] == rows[1]["dgemm_norm"] == pytest.approx(1.0)
    # PTRANS only at P = 4: normalised there, None at 8 (not dropped for both).
    assert rows[0]["ptrans_norm"] == 1.0 and rows[1]["ptrans_norm"] is None
    # STREAM: 42 GB/s both times, 1.05 then 0.525 B/flop.
    assert rows[1]["stream_norm"] == pytest.approx(0.5)
    assert rows[0]["fft_norm"] is None and rows[0]["hpl_hpl_norm"] == 1.0


# --- Figs. 6-15: IMB at 1 MB ------------------------------------------------------------

def comm(variant, size, time=None, bandwidth=None, ranks=4):
    record = base("comm", variant, ranks, algorithm="imb")
    series(record, "time_median", "s", [size], [time])
    if bandwidth is not None:
        series(record, "bandwidth", "B/s", [size], [bandwidth])
    return record


def test_imb_rows_time_in_microseconds_bandwidth_in_mb_per_s():
    assert rows_of(imb.STUDIES, "saini-fig7", (4, [comm("allreduce", MB, 0.002)])) == [
        {"procs": 4, "allreduce_time": pytest.approx(2000.0)}]
    assert rows_of(imb.STUDIES, "saini-fig6", (4, [comm("barrier", 0, 3e-6)])) == [
        {"procs": 4, "barrier_time": pytest.approx(3.0)}]
    assert rows_of(imb.STUDIES, "saini-fig13",
                   (2, [comm("sendrecv", MB, 1e-3, bandwidth=2e9)])) == [
        {"procs": 2, "sendrecv_bw": pytest.approx(2000.0)}]
    # Only another size measured, a failed record, another function: None.
    rows = rows_of(imb.STUDIES, "saini-fig7", (2, [comm("allreduce", 4096, 1e-5)]),
                   (4, [failed(comm("allreduce", MB, 0.002))]),
                   (8, [comm("reduce", MB, 0.002)]))
    assert [row["allreduce_time"] for row in rows] == [None, None, None]


def fig12_point(ranks, time, gfft, ring):
    fft = metric(base("fft", "mpi", ranks), "flop_rate", "flop/s", [gfft])
    return ranks, [comm("alltoall", MB, time, ranks=ranks), fft, beff(ring, ranks=ranks)]


def test_alltoall_accumulated_and_the_correlation_notes():
    # P (P - 1) n / t: 4 x 3 x 2^20 B / 0.012 s = 1.048576 GB/s.
    [row] = rows_of(imb.STUDIES, "saini-fig12", fig12_point(4, 0.012, 3e9, 1e9))
    assert row == {"procs": 4, "alltoall_time": pytest.approx(12000.0),
                   "alltoall_acc": pytest.approx(1.048576), "gfft": pytest.approx(3.0),
                   "rr_acc": pytest.approx(4.0)}
    # Alltoall 2, 12, 56 x 2^20 B/s (t = 1 s); G-FFT proportional to it (r = 1);
    # accumulated ring 2 x 1, 4 x 0.5, 8 x 0.125 = 2, 2, 1 GB/s.
    points = [fig12_point(2, 1.0, 2e9, 1e9), fig12_point(4, 1.0, 12e9, 5e8),
              fig12_point(8, 1.0, 56e9, 1.25e8)]
    chosen = study(imb.STUDIES, "saini-fig12")
    notes = chosen.notes([Measured(Point(p, ()), tuple(records)) for p, records in points])
    texts = {what: measured for what, measured, _ in notes}
    assert texts["Alltoall ~ G-FFT"] == "r = 1.000 over 3 rank counts"
    # By hand: x = 2, 12, 56 (mean 70/3), y = 2, 2, 1 (mean 5/3): Sxy = -98/3,
    # Sxx = 4952/3, Syy = 2/3, r = -98/3 / sqrt(4952/3 x 2/3) = -98 / sqrt(9904) = -0.985.
    assert texts["Alltoall ~ random ring bandwidth"] == "r = -0.985 over 3 rank counts"
    assert texts["G-FFT ~ random ring bandwidth"] == "r = -0.985 over 3 rank counts"


def test_correlation_needs_three_rank_counts():
    assert pearson([1.0, 2.0, 3.0], [1.0, 3.0, 2.0]) == pytest.approx(0.5)
    points = [fig12_point(2, 1.0, 2e9, 1e9), fig12_point(4, 1.0, 12e9, 5e8)]
    broken = fig12_point(8, 1.0, 56e9, 1.25e8)
    broken[1][1]["status"] = "failed"  # G-FFT lost at P = 8
    chosen = study(imb.STUDIES, "saini-fig12")
    notes = chosen.notes([Measured(Point(p, ()), tuple(records))
                          for p, records in points + [broken]])
    texts = {what: measured for what, measured, _ in notes}
    assert texts["Alltoall ~ G-FFT"].startswith("no r: 2 rank count(s)")
    assert texts["Alltoall ~ random ring bandwidth"].endswith("over 3 rank counts")


# --- the launches ------------------------------------------------------------------------

def test_points_tiny_default_and_np():
    tiny = study(hpcc.STUDIES, "saini-fig4").points(StudyContext("tiny"))
    assert [point.value for point in tiny] == [2]
    assert [(step.benchmark, step.variant, step.ranks) for step in tiny[0].steps] == [
        ("stream", "star", 2), ("hpl", "mpi", 2), ("peak", "flops-single", 1)]
    default = study(hpcc.STUDIES, "saini-table2").points(StudyContext("default"))
    assert [point.value for point in default] == [2, 4, 8]
    hpl_options = [step.bench_options for step in default[2].steps if step.benchmark == "hpl"]
    # N = 1000 sqrt(8) = 2828, down to a multiple of NB = 64: 2816; grid 2x4.
    assert hpl_options == [("--n", "2816", "--nb", "64", "--lookahead", "1", "--grid", "2x4")]
    # Table 2 at tiny: six launches, RandomAccess left out.
    tiny_balance = study(hpcc.STUDIES, "saini-table2").points(StudyContext("tiny"))
    assert [step.benchmark for step in tiny_balance[0].steps] == [
        "ptrans", "dgemm", "stream", "fft", "beff", "hpl"]
    assert [step.benchmark for step in default[0].steps][0] == "ra"
    chosen = study(imb.STUDIES, "saini-fig12").points(StudyContext("default", np=(3, 6)))
    assert [point.value for point in chosen] == [3, 6]
    assert [(step.benchmark, step.ranks) for step in chosen[1].steps] == [
        ("comm", 6), ("fft", 6), ("beff", 6)]
    assert "--sizes" in chosen[0].steps[0].bench_options
    barrier = study(imb.STUDIES, "saini-fig6").points(StudyContext("tiny"))
    assert "--sizes" not in barrier[0].steps[0].bench_options
