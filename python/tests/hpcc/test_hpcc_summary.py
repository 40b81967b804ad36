"""HPCC-compatible summary blocks from golden records and from a real `run --suite hpcc`
(key names and order of HPCC 1.5 src/io.c; fixed point with a decimal point where HPCC
has %g, integers for counts, %e for MPI_Wtick; HPCC's "not run" values for the rest),
read with the regular expressions of real HPCC-summary parsers (hpcc_parsers.py)."""

import copy
import json
import math

import pytest
from helpers import golden, measured_summary, run_hpcprobe
from hpcc_parsers import HPCC15_KEYS, RAMBLE_KEYS, block_pairs, parsed_block

from hpcprobe.hpcc_summary.block import decimal
from hpcprobe.hpcc_summary.summary import hpcc_summary_text, unsuccessful_lines

def summary(records):
    """hpcc_summary_text without the constant keys (test_hpcc_suite.py checks those)."""
    return measured_summary(hpcc_summary_text(records), records)


def block(*lines):
    return "\n".join(["Begin of Summary section.", *lines, "End of Summary section."]) + "\n"


def lcg(record, gups):
    record["parameters"]["rng"] = "lcg"
    record["value"]["value"] = gups * 1e9
    return record


def test_single_poly():
    assert summary([golden("single")]) == block(
        "Success=1",
        "CommWorldProcs=1",
        "MPI_Wtick=1.000000e-06",
        "RandomAccess_N=16384",
        "SingleRandomAccess_GUPs=0.025",
    )


def test_star_poly_uses_the_per_rank_mean():
    assert summary([golden("star")]) == block(
        "Success=1",
        "CommWorldProcs=3",
        "MPI_Wtick=1.000000e-06",
        "RandomAccess_N=4096",
        "StarRandomAccess_GUPs=0.02",
    )


def test_mpi_poly():
    assert summary([golden("mpi")]) == block(
        "Success=1",
        "CommWorldProcs=4",
        "MPI_Wtick=1.000000e-06",
        "MPIRandomAccess_N=16384",
        "MPIRandomAccess_time=0.005",
        "MPIRandomAccess_CheckTime=0.0025",
        "MPIRandomAccess_Errors=0",
        "MPIRandomAccess_ErrorsFraction=0.0",
        "MPIRandomAccess_ExeUpdates=65536",
        "MPIRandomAccess_GUPs=0.0131072",
        "MPIRandomAccess_TimeBound=-1.0",
        "MPIRandomAccess_Algorithm=0",
    )


def test_mpi_lcg_with_errors_and_a_time_bound():
    record = lcg(golden("mpi"), 0.0123456789)
    record["validation"]["error"] = 3
    record["parameters"]["time_limit_s"] = 60.0
    record["counters"]["updates_executed"] = 60000
    assert summary([record]) == block(
        "Success=1",
        "CommWorldProcs=4",
        "MPI_Wtick=1.000000e-06",
        "MPIRandomAccess_LCG_N=16384",
        "MPIRandomAccess_LCG_time=0.005",
        "MPIRandomAccess_LCG_CheckTime=0.0025",
        "MPIRandomAccess_LCG_Errors=3",
        "MPIRandomAccess_LCG_ErrorsFraction=0.000183105",
        "MPIRandomAccess_LCG_ExeUpdates=60000",
        "MPIRandomAccess_LCG_GUPs=0.0123457",
        "MPIRandomAccess_LCG_TimeBound=60.0",
        "MPIRandomAccess_LCG_Algorithm=0",
    )


def test_single_and_star_lcg():
    records = [lcg(golden("star"), 0.5), lcg(golden("single"), 1.25)]
    assert summary(records) == block(
        "Success=1",
        "CommWorldProcs=3",
        "MPI_Wtick=1.000000e-06",
        "RandomAccess_LCG_N=16384",
        "StarRandomAccess_LCG_GUPs=0.5",
        "SingleRandomAccess_LCG_GUPs=1.25",
    )


def test_everything_in_hpcc_order_and_a_failure_clears_success():
    failed_single = golden("single")
    failed_single["validation"]["verdict"] = "failed"
    failed_single["status"] = "failed"
    records = [failed_single, golden("star"), golden("mpi"), lcg(golden("mpi"), 2.0),
               lcg(golden("single"), 1.5)]
    lines = summary(records).splitlines()
    keys = [line.split("=")[0] for line in lines[1:-1]]
    assert keys == [
        "Success", "CommWorldProcs", "MPI_Wtick",
        *[f"MPIRandomAccess_LCG_{key}" for key in (
            "N", "time", "CheckTime", "Errors", "ErrorsFraction", "ExeUpdates", "GUPs",
            "TimeBound", "Algorithm")],
        *[f"MPIRandomAccess_{key}" for key in (
            "N", "time", "CheckTime", "Errors", "ErrorsFraction", "ExeUpdates", "GUPs",
            "TimeBound", "Algorithm")],
        "RandomAccess_LCG_N", "SingleRandomAccess_LCG_GUPs",
        "RandomAccess_N", "StarRandomAccess_GUPs", "SingleRandomAccess_GUPs",
    ]
    assert "Success=0" in lines
    assert "MPIRandomAccess_LCG_GUPs=2.0" in lines


def test_skipped_verification_measures_no_errors():
    record = golden("mpi")
    record["validation"] = {"verdict": "skipped", "method": "xor-replay (skipped)"}
    record["metrics"] = [m for m in record["metrics"] if m["name"] != "verify_time"]
    keys = [line.split("=")[0] for line in summary([record]).splitlines()]
    assert "MPIRandomAccess_Errors" not in keys
    assert "MPIRandomAccess_ErrorsFraction" not in keys
    assert "MPIRandomAccess_CheckTime" not in keys
    assert "MPIRandomAccess_GUPs" in keys
    # The whole block has them, with HPCC's value for what was not measured.
    values = dict(block_pairs(hpcc_summary_text([record])))
    assert (values["MPIRandomAccess_Errors"], values["MPIRandomAccess_ErrorsFraction"],
            values["MPIRandomAccess_CheckTime"]) == ("-1", "-1.0", "-1.0")


def test_no_hpcc_records_gives_every_key_not_run():
    pairs = block_pairs(hpcc_summary_text([]))
    assert [key for key, _ in pairs] == HPCC15_KEYS
    values = dict(pairs)
    assert values["Success"] == "0" and values["CommWorldProcs"] == "-1"
    assert values["MPI_Wtick"] == "-1.000000e+00" and values["HPL_Tflops"] == "-1.0"


def mpi_record(algorithm, gups, rng="poly", verdict="passed", compliant=True, mods=None):
    record = golden("mpi")
    record["algorithm"] = algorithm
    record["value"]["value"] = gups * 1e9
    record["parameters"]["rng"] = rng
    record["validation"]["verdict"] = verdict
    record["compliant"] = compliant
    if mods is not None:
        record["parameters"]["mods"] = mods
    return record


def summary_values(text):
    lines = text.splitlines()
    begin = lines.index("Begin of Summary section.")
    return lines[:begin], dict(line.split("=", 1) for line in lines[begin + 1:-1])


def test_the_fastest_validated_algorithm_is_reported_and_named():
    records = [mpi_record("reference", 0.013),
               mpi_record("hypercube", 0.05, mods="prepost,late-update,late-wait,isend"),
               mpi_record("torus", 0.04)]
    before, values = summary_values(summary(records))
    assert values["MPIRandomAccess_GUPs"] == "0.05"
    assert values["MPIRandomAccess_Algorithm"] == "1"  # HPCC's Sandia hypercube
    assert before == [
        "MPIRandomAccess_* report ra mpi --algo hypercube (mods prepost,late-update,late-wait,"
        "isend), HPCC algorithm 1: the highest validated rate of the mpi algorithms run "
        "(hypercube, reference, torus)"]


def test_failed_and_noncompliant_records_are_not_chosen():
    records = [mpi_record("reference", 0.013), mpi_record("hypercube", 0.5, verdict="failed"),
               mpi_record("alltoall", 0.4, compliant=False)]
    before, values = summary_values(summary(records))
    assert values["MPIRandomAccess_GUPs"] == "0.013"
    assert values["MPIRandomAccess_Algorithm"] == "0"
    assert values["Success"] == "0"  # the failed hypercube run still counts
    assert "ra mpi --algo reference, HPCC algorithm 0: the highest validated rate" in before[0]


def test_an_algorithm_without_an_hpcc_number_has_hpccs_unset_algorithm():
    text = hpcc_summary_text([mpi_record("torus", 0.04)])
    before, values = summary_values(text)
    assert values["MPIRandomAccess_GUPs"] == "0.04"
    assert values["MPIRandomAccess_Algorithm"] == "-1"
    assert before == ["MPIRandomAccess_* report ra mpi --algo torus, no HPCC algorithm "
                      "number: the highest validated rate of the mpi algorithms run (torus)"]


def test_each_generator_chooses_its_own_and_the_key_order_stays_hpccs():
    records = [mpi_record("hypercube", 0.05, rng="lcg"), mpi_record("reference", 0.02, "lcg"),
               mpi_record("reference", 0.013), mpi_record("alltoall", 0.011)]
    text = summary(records)
    before, values = summary_values(text)
    assert values["MPIRandomAccess_LCG_GUPs"] == "0.05"
    assert values["MPIRandomAccess_LCG_Algorithm"] == "1"
    assert values["MPIRandomAccess_GUPs"] == "0.013"
    assert [line.split(" ")[0] for line in before] == [
        "MPIRandomAccess_LCG_*", "MPIRandomAccess_*"]
    keys = [line.split("=")[0] for line in text.splitlines()[3:-1]]
    assert keys == ["Success", "CommWorldProcs", "MPI_Wtick",
                    *[f"MPIRandomAccess_LCG_{key}" for key in (
                        "N", "time", "CheckTime", "Errors", "ErrorsFraction", "ExeUpdates",
                        "GUPs", "TimeBound", "Algorithm")],
                    *[f"MPIRandomAccess_{key}" for key in (
                        "N", "time", "CheckTime", "Errors", "ErrorsFraction", "ExeUpdates",
                        "GUPs", "TimeBound", "Algorithm")]]


def test_only_the_reference_algorithm_adds_no_line():
    text = summary([mpi_record("reference", 0.01), mpi_record("reference", 0.02)])
    assert text.startswith("Begin of Summary section.\n")
    assert "MPIRandomAccess_GUPs=0.02\n" in text


def _success_and_reasons(records, step_problems=()):
    text = hpcc_summary_text(records, step_problems)
    success = [line for line in text.splitlines() if line.startswith("Success=")]
    return success, unsuccessful_lines(records, step_problems)


def test_success_needs_every_record_to_have_passed():
    assert _success_and_reasons([golden("single"), golden("mpi")]) == (["Success=1"], [])
    skipped = golden("mpi")
    skipped["validation"] = {"verdict": "skipped", "method": "xor-replay (skipped)"}
    assert _success_and_reasons([golden("single"), skipped]) == (
        ["Success=0"], ["Not successful: 'ra mpi reference' was not verified (--no-verify)"])
    failed = golden("single")
    failed["status"] = "failed"
    failed["validation"]["verdict"] = "failed"
    assert _success_and_reasons([failed])[1] == [
        "Not successful: 'ra single serial' failed validation"]
    odd = golden("star")
    del odd["status"]
    assert _success_and_reasons([odd]) == (
        ["Success=0"], ["Not successful: 'ra star serial' has no validation verdict"])


def test_a_step_that_did_not_deliver_clears_success_and_is_named():
    problems = ["step 'hpl mpi' failed (exit status 17)"]
    assert _success_and_reasons([golden("single")], problems) == (
        ["Success=0"], ["Not successful: step 'hpl mpi' failed (exit status 17)"])
    # Nothing measured at all: every key is there, Success=0, the rest "not run".
    values = dict(block_pairs(hpcc_summary_text([], problems)))
    assert values["Success"] == "0" and values["CommWorldProcs"] == "-1"


def _with_binary(record, **metadata):
    record["metadata"].update(metadata)
    return record


def test_type_sizes_arithmetic_and_openmp_come_from_the_measuring_binary():
    sizes = {name: 4 for name in ("char", "short", "int", "long", "void_ptr", "size_t",
                                  "float", "double", "s64Int", "u64Int",
                                  "struct_double_double")}
    model = {"double": {"radix": 2, "mantissa_digits": 53, "min_exponent": -1021,
                        "max_exponent": 1024},
             "float": {"radix": 2, "mantissa_digits": 24, "min_exponent": -125,
                       "max_exponent": 128}}
    openmp = {"version": 201511, "num_threads": 3, "max_threads": 3, "num_procs": 2}
    record = _with_binary(golden("single"), c_type_sizes_bytes=sizes, floating_point=model,
                          openmp=openmp)
    lines = hpcc_summary_text([record]).splitlines()
    assert "sizeof_long=4" in lines and "sizeof_struct_double_double=4" in lines
    assert "HPL_dMACH_EPS=1.110223e-16" in lines and "HPL_sMACH_EMAX=1.280000e+02" in lines
    assert "dweps=1.110223e-16" in lines and "sweps=5.960464e-08" in lines
    assert ["M_OPENMP=201511", "omp_get_num_threads=3", "omp_get_max_threads=3",
            "omp_get_num_procs=2"] == [line for line in lines
                                       if line.startswith(("M_OPENMP", "omp_"))]


def openmp_lines(text):
    return [line for line in text.splitlines() if line.startswith(("M_OPENMP", "omp_"))]


def test_a_binary_without_openmp_prints_hpccs_values_and_an_unknown_one_minus_one():
    without = hpcc_summary_text([_with_binary(golden("single"), openmp=None)])
    assert openmp_lines(without) == ["M_OPENMP=-1", "omp_get_num_threads=0",
                                     "omp_get_max_threads=0", "omp_get_num_procs=0"]
    # Records of an older binary do not say: -1, not the reader's own values.
    unknown = dict(block_pairs(hpcc_summary_text([golden("single")])))
    assert [unknown[key] for key in ("M_OPENMP", "omp_get_num_threads", "sizeof_char",
                                     "HPL_dMACH_EPS", "dweps")] == [
        "-1", "-1", "-1", "-1.000000e+00", "-1.000000e+00"]
    odd_model = {"double": {"radix": 10, "mantissa_digits": 16, "min_exponent": -383,
                            "max_exponent": 384}}
    odd = dict(block_pairs(hpcc_summary_text([_with_binary(golden("single"),
                                                           floating_point=odd_model)])))
    assert odd["HPL_dMACH_EPS"] == "-1.000000e+00"


# --- formats that parsers requiring a decimal point read -------------------------------

@pytest.mark.parametrize("value,text", [
    (1.0123e-05, "0.000010123"), (12, "12.0"), (0.025, "0.025"), (-1, "-1.0"), (0, "0.0"),
    (60.0, "60.0"), (123456789.123, "123456789.1"), (9.9999996, "10.0"),
    (3e-9, "0.000000003"), (0.0123456789, "0.0123457")])
def test_decimal_is_fixed_point_with_a_point(value, text):
    assert decimal(value) == text


def test_decimal_keeps_gs_six_significant_digits_at_every_magnitude():
    for exponent in range(-18, 13):
        value = 1.234567891 * 10.0 ** exponent
        printed = decimal(value)
        assert "e" not in printed and "." in printed, printed
        assert math.isclose(float(printed), value, rel_tol=5e-6), (value, printed)


# --- a real run's block, as HPCC-summary parsers read it --------------------------------

@pytest.fixture(scope="module")
def real_run(tmp_path_factory):
    """`hpcprobe run --suite hpcc --scale tiny --np 2`: (its hpcc-summary.txt, records)."""
    out = tmp_path_factory.mktemp("hpcc-suite")
    done = run_hpcprobe("run", "--suite", "hpcc", "--scale", "tiny", "--np", "2", "--out",
                        str(out), "--quiet", timeout=600)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return (out / "hpcc-summary.txt").read_text(), records


def test_a_real_block_has_every_key_once_and_the_parsers_read_it(real_run):
    text, records = real_run
    values = parsed_block(text)
    assert values["Success"] == "1" and values["CommWorldProcs"] == "2"
    # Everything ran: every figure Ramble reads is a measured, positive rate.
    assert all(float(values[key]) > 0 for key in RAMBLE_KEYS)
    assert hpcc_summary_text(records) in text  # the file is the records' block


def _record(records, benchmark, variant):
    return next(r for r in reversed(records)
                if r["benchmark"] == benchmark and r["variant"] == variant)


def _set_metric(record, name, value):
    next(m for m in record["metrics"] if m["name"] == name)["samples"] = [value]


def test_mpifft_phases_come_from_the_fft_mpi_record(real_run):
    text, records = real_run
    values = parsed_block(text)
    fft = _record(records, "fft", "mpi")
    phases = {m["name"]: m["samples"][0] for m in fft["metrics"] if m["name"].endswith("time")}
    assert [float(values[f"MPIFFT_time{i}"]) for i in range(1, 6)] == pytest.approx(
        [phases[name] for name in ("transpose1_time", "fft1_twiddle_time", "transpose2_time",
                                   "fft2_time", "transpose3_time")], rel=5e-6)
    # HPCC's setup inside the call and the inverse's scaling have no phase here.
    assert (values["MPIFFT_time0"], values["MPIFFT_time6"]) == ("0.0", "0.0")


def test_tiny_times_and_whole_rates_of_real_records_reach_the_parsers(real_run):
    records = copy.deepcopy(real_run[1])
    for record in records:
        if record["benchmark"] == "ra" and record["variant"] == "mpi":
            record["value"]["value"] = 12e9  # 12 GUP/s: %g would print "12"
    _set_metric(_record(records, "fft", "mpi"), "transpose1_time", 1.0123e-05)
    _set_metric(_record(records, "ptrans", "mpi"), "time", 3e-9)
    _record(records, "hpl", "mpi")["value"]["value"] = 2e12
    values = parsed_block(hpcc_summary_text(records))
    assert values["MPIRandomAccess_GUPs"] == "12.0" and values["HPL_Tflops"] == "2.0"
    assert values["MPIFFT_time1"] == "0.000010123" and values["PTRANS_time"] == "0.000000003"


def test_keys_of_tests_that_did_not_run_get_hpccs_not_run_values(real_run):
    only_ra = [r for r in real_run[1] if r["benchmark"] == "ra" and r["variant"] == "single"]
    values = parsed_block(hpcc_summary_text(only_ra))
    assert values["SingleRandomAccess_GUPs"] != "-1.0" and values["Success"] == "1"
    not_run = {"HPL_Tflops": "-1.0", "HPL_N": "-1", "HPL_cpfact": "-", "HPL_BnormI": "-1.0",
               "HPLMaxProcs": "-1", "DGEMM_N": "-1", "PTRANS_residual": "-1.0",
               "MPIRandomAccess_GUPs": "-1.0", "MPIRandomAccess_N": "-1",
               "MPIRandomAccess_Algorithm": "-1", "StarRandomAccess_GUPs": "-1.0",
               "STREAM_VectorSize": "-1", "STREAM_Threads": "1", "SingleSTREAM_Triad": "-1.0",
               "MPIFFT_Gflops": "-1.0", "MPIFFT_Procs": "-1", "MPIFFT_time3": "0.0",
               "MaxPingPongLatency_usec": "-1.0", "MemVal": "-1.0", "CPS_USING_FFTW": "0"}
    assert {key: values[key] for key in not_run} == not_run
