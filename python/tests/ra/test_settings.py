"""Records that differ in an option that changes RandomAccess's algorithm (--owner,
--overlap, --mods, --dims) are never one row of `hpcprobe compare`, one curve or row of
the report, nor one measured point of `hpcprobe model ra`; records of the same options
still merge. The declared options (families/ra/settings.py) against the bench's own
description and records."""

import csv
import io
import json

import pytest
from helpers import golden
from integration import run_bench

import hpcprobe.families  # noqa: F401  (registers the report sections)
from hpcprobe import describe
from hpcprobe.analysis.compare import Column, comparison_rows
from hpcprobe.analysis.merge import merged_groups
from hpcprobe.families.ra import report
from hpcprobe.families.ra.model_fit import fit_tc, measured_gups, other_forms
from hpcprobe.families.ra.settings import (ALGORITHM_OPTIONS, ALL_MODS, dims_create,
                                           default_dims)
from hpcprobe.report.blocks import Table
from hpcprobe.report.plots import FigureSink
from hpcprobe.report.registry import algorithm_setting
from hpcprobe.report.settings import setting_key

# Each option away from the bench's default, as the record's parameters say it.
CHANGED = {"owner": {"owner": "predict"}, "overlap": {"overlap": "off"},
           "mods": {"overlap": "off", "mods": "none"}}


def ra_record(algorithm="hypercube", ranks=4, rate=1e8, lookahead=1024, **parameters):
    """An `ra mpi` record as today's bench writes it, at the defaults unless told."""
    record = golden("mpi")
    record["algorithm"] = algorithm
    record["layout"]["ranks"] = ranks
    defaults = {"owner": "division", "mapping_mode": 1, "threads": 1, "lookahead": lookahead}
    if algorithm == "hypercube":
        defaults.update(overlap="on", mods=ALL_MODS)
    if algorithm == "torus":
        defaults.update(overlap="off",
                        grid="x".join(map(str, dims_create(ranks, default_dims(ranks)))))
    record["parameters"].update(defaults, **parameters)
    record["metrics"][0]["samples"] = [rate] * 3
    record["value"]["value"] = rate
    record["metadata"]["command_line"] = ["hpcprobe-bench", "ra", "mpi", "--algo", algorithm,
                                          *(f"{key}={value}" for key, value in parameters.items())]
    return record


def rows_of(records):
    return comparison_rows([Column("A", records)])


def headline_rows(records):
    return [row for row in rows_of(records) if row.key[4] == "update_rate"]


@pytest.mark.parametrize("change", sorted(CHANGED))
def test_compare_keeps_each_setting_in_its_own_row(change):
    default, changed = ra_record(rate=1e8), ra_record(rate=3e8, **CHANGED[change])
    rows = headline_rows([default, changed])
    assert len(rows) == 2
    labels = {row.label: row.cells[0].value for row in rows}
    assert labels["ra mpi hypercube: update_rate"] == 1e8
    changed_label = next(label for label in labels if label != "ra mpi hypercube: update_rate")
    assert labels[changed_label] == 3e8
    assert {"owner": "owner predict", "overlap": "overlap off",
            "mods": "mods none, overlap off"}[change] in changed_label


def test_compare_keeps_torus_grids_apart_and_names_the_dims():
    square, line = ra_record("torus"), ra_record("torus", grid="4")
    rows = headline_rows([square, line])
    assert sorted(row.label for row in rows) == ["ra mpi torus (dims 1): update_rate",
                                                 "ra mpi torus: update_rate"]
    assert report.compare_label(ra_record("torus", grid="4x1x1")) == "grid 4x1x1"


def test_identical_options_still_merge_into_one_row():
    first, second = ra_record(rate=1e8, owner="predict"), ra_record(rate=3e8, owner="predict")
    merged = merged_groups([first, second])
    assert len(merged) == 1 and merged[0]["counters"]["merged_launches"] == 2
    rows = headline_rows([first, second])
    # One row, of the six samples pooled: the median of 1, 1, 1, 3, 3, 3 (x 10^8).
    assert len(rows) == 1 and rows[0].cells[0].value == 2e8


def test_the_row_key_holds_every_setting_even_where_labels_agree():
    """A record that names the default and an old one that does not are the same setting;
    a differing value is another key."""
    old = ra_record("alltoall")
    del old["parameters"]["owner"]
    assert algorithm_setting(old) == algorithm_setting(ra_record("alltoall"))
    assert algorithm_setting(ra_record("alltoall", owner="predict")) != algorithm_setting(old)
    assert setting_key(ra_record("single"), ()) == ()


def test_labels_at_the_defaults_stay_short():
    for algorithm in ("reference", "alltoall", "hypercube", "torus"):
        assert report.compare_label(ra_record(algorithm)) == ""
    # The pipelined hypercube does what every Mod does: --mods is no part of its setting.
    assert report.compare_label(ra_record(mods="none")) == ""
    # Records from before --overlap ran lock-step.
    old = ra_record(mods="none")
    del old["parameters"]["overlap"]
    assert report.compare_label(old) == "mods none, overlap off"
    assert report.compare_label(ra_record(lookahead=64, overlap="off", owner="predict")) == \
        "Q=64, overlap off, owner predict"


def figure_curves(sink, stem):
    """The curve names of a figure, from the CSV the report writes beside it."""
    rows = list(csv.reader(io.StringIO(sink.files[f"{stem}.csv"])))[1:]
    return sorted({row[0] for row in rows})


def test_the_scaling_figure_draws_one_curve_per_setting():
    records = [ra_record(ranks=p) for p in (1, 2, 4)]
    records += [ra_record(ranks=p, owner="predict") for p in (2, 4)]
    records += [ra_record(ranks=2, overlap="off"), ra_record(ranks=2, overlap="off", mods="none")]
    records += [ra_record("torus", ranks=4), ra_record("torus", ranks=4, grid="4")]
    sink = FigureSink("data")
    report.section(records, sink)
    assert figure_curves(sink, "randomaccess-gups-against-ranks") == [
        "hypercube", "hypercube (mods none, overlap off)", "hypercube (overlap off)",
        "hypercube (owner predict)", "torus", "torus (dims 1)"]


def test_the_lookahead_sweep_keeps_owners_apart():
    records = [ra_record(ranks=2, lookahead=q, owner=owner, rate=rate)
               for q in (64, 1024) for owner, rate in (("division", 1e8), ("predict", 2e8))]
    sink = FigureSink("data")
    blocks = report.section(records, sink)
    assert figure_curves(sink, "randomaccess-gups-against-look-ahead-q") == [
        "hypercube P=2", "hypercube P=2 (owner predict)"]
    sweep = next(b for b in blocks if isinstance(b, Table) and b.title.startswith("Look-ahead"))
    assert sorted({row[0] for row in sweep.rows}) == ["hypercube P=2",
                                                      "hypercube P=2 (owner predict)"]


def test_mod_switches_are_lock_step_records_of_one_setting():
    lock_step = {"overlap": "off"}
    records = [ra_record(mods="none", rate=1e8, **lock_step),
               ra_record(mods=ALL_MODS, rate=2e8, **lock_step),
               ra_record(mods="none", rate=9e8),  # pipelined: not "no Mods"
               ra_record(mods="none", rate=3e8, owner="predict", **lock_step),
               ra_record(mods="prepost", rate=4e8, owner="predict", **lock_step)]
    blocks = report.section(records, FigureSink("data"))
    tables = {b.title: b.rows for b in blocks if isinstance(b, Table) and "Mod switches" in b.title}
    assert sorted(tables) == [
        "Lock-step hypercube Mod switches on 4 ranks, Q = 1024, table 2^14",
        "Lock-step hypercube Mod switches on 4 ranks, Q = 1024, table 2^14, owner predict"]
    default = tables["Lock-step hypercube Mod switches on 4 ranks, Q = 1024, table 2^14"]
    assert [(row[0], row[1], row[2]) for row in default] == [("all", "0.2", "2"),
                                                             ("none", "0.1", "1")]


def test_the_gups_table_and_the_mapping_modes_name_the_setting():
    records = [ra_record(mapping_mode=1), ra_record(mapping_mode=1, owner="predict"),
               ra_record("shared", mapping_mode=5, rate=5e7)]
    blocks = report.section(records, FigureSink("data"))
    by_algorithm = next(b for b in blocks if isinstance(b, Table)
                        and b.title == "GUPS by variant and algorithm")
    assert sorted(row[2] for row in by_algorithm.rows) == ["mode 5", "owner predict", "—"]
    modes = next(b for b in blocks if isinstance(b, Table) and b.title.startswith("Mapping"))
    assert sorted(row[2] for row in modes.rows) == ["hypercube", "hypercube (owner predict)",
                                                    "shared"]


def test_model_points_and_tc_take_the_models_form_only():
    lock_step = {"overlap": "off"}
    one = ra_record(ranks=1, rate=1e7, **lock_step)  # every Mod: none to change on one rank
    none = ra_record(ranks=2, mods="none", rate=2e7, **lock_step)
    others = [ra_record(ranks=2, rate=5e7, **lock_step),
              ra_record(ranks=2, mods="none", owner="predict", rate=7e7, **lock_step)]
    assert measured_gups([one, none, *others], "hypercube", 1024) == {
        1: pytest.approx([0.01]), 2: pytest.approx([0.02])}
    assert other_forms([one, none, *others], "hypercube", 1024) == 2
    for record in (none, others[1]):
        record["counters"].update(route_ns=[1000, 1000], steps=[1, 1], stages=[1, 1])
    assert fit_tc([none, others[1]], 1024).procs == (2,)  # the predicted owners left out


def test_the_declared_options_are_the_benchs():
    """Each declared option is one the bench describes for ra, taken by the algorithms
    whose default settings.py gives, with the bench's default where it states one."""
    family = describe.load_description().family("ra")
    described = {option.name: option for option in family.options}
    takes = {name: sorted(kernel.split("/")[1] for kernel in described[name].kernels)
             for name in ("--mods", "--overlap", "--dims", "--grid")}
    for option in ALGORITHM_OPTIONS:
        name = family.option(option.option).name
        assert name in described
        for kernel in family.kernels:
            probe = ra_record(kernel.algorithm, overlap="off")
            probe["variant"] = kernel.variant
            if option.option != "owner":
                assert (option.default(probe) is not None) == (name in kernel.options)
    assert takes["--mods"] == ["hypercube"] and takes["--dims"] == takes["--grid"]
    assert described["--owner"].default == "division"
    assert described["--mods"].default == "all"
    assert ",".join(described["--mods"].choices) == ALL_MODS


@pytest.mark.parametrize("algorithm", ["hypercube", "torus", "pipeline"])
def test_the_benchs_records_at_its_defaults_get_no_setting_words(tmp_path, algorithm):
    """Real records: the defaults settings.py assumes (overlap per algorithm, the grid
    MPI_Dims_create makes) are what the bench runs; --dims 1 is named."""
    out = tmp_path / "records.jsonl"
    for extra in ((), ("--dims", "1")) if algorithm != "hypercube" else ((),):
        completed = run_bench("ra", "mpi", "--algo", algorithm, "--table-log2", "10",
                              "--quiet", "--oversubscribe", "--out", str(out), *extra, np=4)
        assert completed.returncode == 0, completed.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert report.setting(records[0]) == ""
    if algorithm != "hypercube":
        assert report.setting(records[1]) == "dims 1"
        assert algorithm_setting(records[1]) != algorithm_setting(records[0])
