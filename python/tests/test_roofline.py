"""The roofline (hpcprobe.limits.roofline) and the report's "Limits and roofline": the
roofline's data are the records' own figures at their intensities, and the section renders
with each named kernel on the picture and in its table."""

import base64
import re

import pytest
from browser import ARTIFACTS, chromium, visit
from helpers import run_hpcprobe, write_jsonl
from limits_data import (collective, fft, flops_record, peak_bandwidth, peak_flops, pingpong,
                         ra, stream)

from hpcprobe.limits import bounds
from hpcprobe.limits.roofline import KERNELS, rooflines


def records():
    """A made-up run: the peaks, the five kernels, PingPong and an Allreduce at 3.5x its
    bound (a finding)."""
    return [peak_flops("star", 34e9, 40e9, ranks=4),
            peak_bandwidth("star", {"load_bandwidth_l1": 800e9, "load_bandwidth_l2": 300e9,
                                    "load_bandwidth_memory": 45e9,
                                    "copy_bandwidth_memory": 36e9}, ranks=4),
            flops_record("dgemm", "star", 8e9, ranks=4, n=1600),
            flops_record("hpl", "mpi", 25e9, ranks=4, n=2400),
            stream("star", 9e9, 10e9, copies=4),
            fft("star", 1e9, 1 << 20, ranks=4),
            ra("star", 2e8, 1 << 30, ranks=4),
            pingpong(1e9, 1e-6),
            collective("allreduce", [0.0, 1 << 20], [3.5e-6, 3.5 * (1 << 20) / 1e9])]


def test_the_roofline_data_are_the_records_figures():
    (roofline,) = rooflines(records())
    assert roofline.peak == 34e9
    assert roofline.bandwidths == [("l1", 800e9), ("l2", 300e9), ("memory", 45e9)]
    points = {point.kernel: point for point in roofline.points}
    assert list(points) == list(KERNELS)
    assert (points["DGEMM"].intensity, points["DGEMM"].rate) == (100, 32e9)   # 4 x 8 GF/s
    assert (points["HPL"].intensity, points["HPL"].rate) == (100, 25e9)
    assert points["STREAM Triad"].rate == pytest.approx(36e9 * 2 / 24)       # 4 x 9 GB/s
    assert points["STREAM Triad"].intensity == pytest.approx(1 / 12)
    assert points["FFT"].rate == 4e9
    assert points["FFT"].intensity == pytest.approx(bounds.fft_intensity(1 << 20))
    assert (points["RandomAccess"].rate, points["RandomAccess"].unit) == (2e8, "updates/s")


def test_single_records_stand_in_where_no_star_ran():
    (roofline,) = rooflines([flops_record("dgemm", "single", 9e9, n=800),
                             stream("single", 12e9, 13e9)])
    assert roofline.peak is None and roofline.bandwidths == []
    assert [(p.kernel, p.rate) for p in roofline.points] == [
        ("DGEMM", 9e9), ("STREAM Triad", pytest.approx(1e9))]


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("run")
    write_jsonl(folder / "results.jsonl", records())
    out = folder / "report.html"
    completed = run_hpcprobe("report", str(folder), "-o", str(out), timeout=300)
    assert completed.returncode == 0, completed.stderr
    return out


def test_the_report_section_has_findings_limits_and_the_roofline(page):
    html = page.read_text()
    section = html[html.index('<h2 id="limits">'):html.index('<h2 id="statistics">')]
    assert "Limits and roofline" in section and "1 finding" in section
    assert "comm allreduce imb, time at 1 MiB: 3.67 ms is 3.5x its bound 1.049 ms" in section
    assert "Against the machine&#39;s limits" in section
    for kernel in KERNELS:
        assert f"<td>{kernel}</td>" in section, kernel
    (image,) = re.findall(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', section)
    svg = base64.b64decode(image).decode()
    for kernel in KERNELS:
        assert kernel in svg, kernel
    assert "<script" not in svg


def test_chromium_opens_the_roofline(page):
    visited = visit(chromium(), page, ARTIFACTS / "roofline.png")
    assert visited.console == [], visited.console
