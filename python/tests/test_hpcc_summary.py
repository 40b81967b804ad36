"""HPCC-compatible summary blocks from golden records (key names and order of HPCC 1.5
src/io.c; %g for rates and times, integers for counts, %e for MPI_Wtick)."""

from helpers import golden, measured_summary

from hpcprobe.families.hpcc.summary import hpcc_summary_text, unsuccessful_lines

def summary(records):
    """hpcc_summary_text without the constant keys (test_hpcc_suite.py checks those)."""
    return measured_summary(hpcc_summary_text(records))


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
        "MPIRandomAccess_ErrorsFraction=0",
        "MPIRandomAccess_ExeUpdates=65536",
        "MPIRandomAccess_GUPs=0.0131072",
        "MPIRandomAccess_TimeBound=-1",
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
        "MPIRandomAccess_LCG_TimeBound=60",
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
    assert "MPIRandomAccess_LCG_GUPs=2" in lines


def test_skipped_verification_writes_no_error_keys():
    record = golden("mpi")
    record["validation"] = {"verdict": "skipped", "method": "xor-replay (skipped)"}
    record["metrics"] = [m for m in record["metrics"] if m["name"] != "verify_time"]
    keys = [line.split("=")[0] for line in summary([record]).splitlines()]
    assert "MPIRandomAccess_Errors" not in keys
    assert "MPIRandomAccess_ErrorsFraction" not in keys
    assert "MPIRandomAccess_CheckTime" not in keys
    assert "MPIRandomAccess_GUPs" in keys


def test_no_randomaccess_records_gives_an_empty_block():
    assert summary([]) == block()


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


def test_an_algorithm_without_an_hpcc_number_has_no_algorithm_key():
    before, values = summary_values(summary([mpi_record("torus", 0.04)]))
    assert values["MPIRandomAccess_GUPs"] == "0.04"
    assert "MPIRandomAccess_Algorithm" not in values
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
    # Nothing measured at all: the general keys still say Success=0.
    text = hpcc_summary_text([], problems)
    assert "Success=0" in text.splitlines() and "CommWorldProcs" not in text


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


def test_a_binary_without_openmp_prints_minus_one_and_an_unknown_one_nothing():
    without = hpcc_summary_text([_with_binary(golden("single"), openmp=None)]).splitlines()
    assert [line for line in without if line.startswith(("M_OPENMP", "omp_"))] == [
        "M_OPENMP=-1", "omp_get_num_threads=-1", "omp_get_max_threads=-1",
        "omp_get_num_procs=-1"]
    # Records of an older binary do not say: the keys are left out, not invented.
    unknown = hpcc_summary_text([golden("single")])
    assert "M_OPENMP" not in unknown and "sizeof_" not in unknown and "dMACH" not in unknown
    odd_model = {"double": {"radix": 10, "mantissa_digits": 16, "min_exponent": -383,
                            "max_exponent": 384}}
    assert "dMACH" not in hpcc_summary_text([_with_binary(golden("single"),
                                                          floating_point=odd_model)])
