"""Paper 004's studies' rows from contention records (docs/studies/bhatele.md). Records
are untrusted input: every field is read through hpcprobe.records, a value that cannot be
computed is None, and a record that failed (status not "ok", or validation failed) is
never used. Times go into the tables in µs, as the paper prints them; spreads in %."""

from typing import Any, Dict, List, Optional, Sequence

from hpcprobe.families.contention.bhatele_model import eq1_latency
from hpcprobe.netsim.report import (compare_record, machine_from_record, phases_from_record,
                                   record_link_model)
from hpcprobe.netsim.simulate import simulate
from hpcprobe.records import number, numbers, parameter, section_of, series_points
from hpcprobe.units import MICRO

Record = Dict[str, Any]


def usable(records: Sequence[Record], variant: str, pairs: Optional[str] = None) -> List[Record]:
    """The contention records of `variant` (WICON: of `pairs`) that may be used."""
    found = []
    for record in records:
        if not isinstance(record, dict) or record.get("benchmark") != "contention":
            continue
        if record.get("variant") != variant or record.get("status") != "ok":
            continue
        if section_of(record, "validation").get("verdict") == "failed":
            continue
        if pairs is not None and parameter(record, "pairs") != pairs:
            continue
        found.append(record)
    return found


def first(records: Sequence[Record], variant: str,
          pairs: Optional[str] = None) -> Optional[Record]:
    found = usable(records, variant, pairs)
    return found[0] if found else None


def us(seconds: Optional[float]) -> Optional[float]:
    return None if seconds is None else seconds / MICRO


def ratio(top: Optional[float], bottom: Optional[float]) -> Optional[float]:
    return top / bottom if top is not None and bottom else None


def at(record: Optional[Record], series: str, size: float) -> Optional[float]:
    """The series' y at x = size (None: no record, no series, no such point)."""
    if record is None:
        return None
    return series_points(record, series).get(float(size))


def series_names(record: Optional[Record], prefix: str) -> List[str]:
    entries = record.get("series") if isinstance(record, dict) else None
    if not isinstance(entries, list):
        return []
    return [entry["name"] for entry in entries if isinstance(entry, dict)
            and isinstance(entry.get("name"), str) and entry["name"].startswith(prefix)]


def numbered(record: Optional[Record], prefix: str) -> List[int]:
    """The k of every series `prefix`<k>, sorted (stress-link's pairs, equidistant's n)."""
    found = []
    for name in series_names(record, prefix):
        tail = name[len(prefix):]
        if tail.isdigit():
            found.append(int(tail))
    return sorted(set(found))


def hop_times(record: Optional[Record], size: float) -> Dict[float, List[float]]:
    """WOCON: each destination's time at `size`, by its hops (pair_time_b<size>)."""
    entry = None
    if record is not None:
        entry = next((s for s in record.get("series") or [] if isinstance(s, dict)
                      and s.get("name") == f"pair_time_b{int(size)}"), None)
    if entry is None or not isinstance(entry.get("x"), list) \
            or not isinstance(entry.get("y"), list):
        return {}
    by_hops: Dict[float, List[float]] = {}
    for x, y in zip(entry["x"], entry["y"]):
        if number(x) is not None and number(y) is not None:
            by_hops.setdefault(float(x), []).append(float(y))
    return by_hops


def pair_hops(record: Optional[Record]) -> List[float]:
    """The hops of every measured pair (counters.pair_hops), the non-negative ones."""
    return [h for h in numbers(section_of(record, "counters").get("pair_hops")) if h >= 0]


def _mean(values: Sequence[float]) -> Optional[float]:
    return sum(values) / len(values) if values else None


def predicted(record: Optional[Record], phase: str, size: float) -> Optional[float]:
    """The simulator's time for `phase` of `record` at `size` (simulate --compare),
    with the record's link model (its emulated cluster's links, else BG/P's); None where
    it cannot model the record (a flat topology, malformed counters)."""
    if record is None:
        return None
    try:
        compared = compare_record(record, record_link_model(record))
    except (ValueError, TypeError, KeyError, IndexError):
        return None
    for row in compared["rows"]:
        if row["phase"] == phase and row["bytes"] == int(size):
            return number(row["predicted_s"])
    return None


# --- the rows of each study --------------------------------------------------------------

def wocon_model(record: Optional[Record], size: float) -> Dict[str, Optional[float]]:
    """Eq. 1 for every WOCON destination alone on its route: the nearest's time (min), a
    random one's (mean), the farthest's (max). On the network the simulator rebuilds
    from the record (an emulated tree cluster's switches and uplinks included), else at
    the record's own counters.pair_hops (a flat topology: 2 hops each)."""
    none: Dict[str, Optional[float]] = {"min": None, "mean": None, "max": None}
    if record is None:
        return none
    link = record_link_model(record)
    try:
        machine = machine_from_record(record)
        ((_, phase, _),) = phases_from_record(record, machine)
        row = simulate(machine, [phase], link, [int(size)])["latency"][0]
        return {"min": row["min_s"], "mean": row["mean_s"], "max": row["max_s"]}
    except (ValueError, TypeError, KeyError, IndexError):
        pass
    times = [eq1_latency(hops, size, link) for hops in pair_hops(record)]
    if not times:
        return none
    return {"min": min(times), "mean": _mean(times), "max": max(times)}


def wocon_row(record: Optional[Record], size: float) -> Dict[str, Any]:
    """Figures 3-6: min, mean, max over destinations, (max − min)/min, and eq. 1 for
    the nearest and the farthest destination."""
    hops = pair_hops(record)
    model = wocon_model(record, size)
    low, high = model["min"], model["max"]
    spread = at(record, "spread", size)
    model_spread = ratio(None if high is None or low is None else high - low, low)
    return {"message_bytes": int(size), "min_us": us(at(record, "message_time_min", size)),
            "mean_us": us(at(record, "message_time_mean", size)),
            "max_us": us(at(record, "message_time_max", size)),
            "spread": None if spread is None else 100.0 * spread,
            "max_hops": max(hops) if hops else None,
            "model_min_us": us(low), "model_max_us": us(high),
            "model_spread": None if model_spread is None else 100.0 * model_spread}


def wocon_nn_rnd(record: Optional[Record], size: float) -> Dict[str, Optional[float]]:
    """Table 1's WOCON: NN the destinations at the fewest hops, RND all of them (a
    random destination's expected time); the model: the nearest destination's eq. 1
    and the mean over all (wocon_model)."""
    by_hops = hop_times(record, size)
    model = wocon_model(record, size)
    nearest = by_hops[min(by_hops)] if by_hops else []
    every = [t for times in by_hops.values() for t in times]
    return {"nn": _mean(nearest), "rnd": _mean(every), "model_nn": model["min"],
            "model_rnd": model["mean"]}


def wicon_time(record: Optional[Record], size: float) -> Optional[float]:
    return at(record, "message_time_mean", size)


def stress_row(record: Optional[Record], size: float) -> Dict[str, Any]:
    """Figure 11: the middle pair alone and with every pair, measured and simulated."""
    counts = numbered(record, "middle_pair_time_pairs_")
    most = counts[-1] if counts else None
    alone = at(record, "middle_pair_time_pairs_1", size)
    every = at(record, f"middle_pair_time_pairs_{most}", size) if most else None
    model_alone = predicted(record, "1 pair(s)", size)
    model_all = predicted(record, f"{most} pair(s)", size) if most else None
    return {"message_bytes": int(size), "pairs": most, "alone_us": us(alone),
            "all_us": us(every), "slowdown": ratio(every, alone),
            "model_alone_us": us(model_alone), "model_all_us": us(model_all),
            "model_slowdown": ratio(model_all, model_alone)}


def equidistant_row(record: Optional[Record], size: float) -> Dict[str, Any]:
    """Figure 13: the nearest distance (1 hop) against the farthest, measured and
    simulated."""
    distances = numbered(record, "message_time_distance_")
    near_n, far_n = (distances[0], distances[-1]) if distances else (None, None)
    near = at(record, f"message_time_distance_{near_n}", size) if near_n else None
    far = at(record, f"message_time_distance_{far_n}", size) if far_n else None
    model_near = predicted(record, f"distance {near_n}", size) if near_n else None
    model_far = predicted(record, f"distance {far_n}", size) if far_n else None
    return {"message_bytes": int(size), "distance": far_n, "near_us": us(near),
            "far_us": us(far), "far_over_near": ratio(far, near),
            "model_near_us": us(model_near), "model_far_us": us(model_far),
            "model_far_over_near": ratio(model_far, model_near)}


def wicon_row(nn: Optional[Record], rnd: Optional[Record], size: float) -> Dict[str, Any]:
    """Figure 9: NN against RND pairs, measured and simulated."""
    nn_t, rnd_t = wicon_time(nn, size), wicon_time(rnd, size)
    model_nn, model_rnd = predicted(nn, "wicon", size), predicted(rnd, "wicon", size)
    return {"message_bytes": int(size), "nn_us": us(nn_t), "rnd_us": us(rnd_t),
            "rnd_over_nn": ratio(rnd_t, nn_t), "model_nn_us": us(model_nn),
            "model_rnd_us": us(model_rnd), "model_rnd_over_nn": ratio(model_rnd, model_nn)}


def table1_row(records: Sequence[Record], size: float) -> Dict[str, Any]:
    """Table 1: WOCON and WICON, NN and RND, measured and modelled, at one size."""
    wocon = wocon_nn_rnd(first(records, "wocon"), size)
    nn, rnd = first(records, "wicon", "nn"), first(records, "wicon", "rnd")
    return {"message_bytes": int(size), "wocon_nn": us(wocon["nn"]),
            "wocon_rnd": us(wocon["rnd"]), "wicon_nn": us(wicon_time(nn, size)),
            "wicon_rnd": us(wicon_time(rnd, size)), "model_wocon_nn": us(wocon["model_nn"]),
            "model_wocon_rnd": us(wocon["model_rnd"]),
            "model_wicon_nn": us(predicted(nn, "wicon", size)),
            "model_wicon_rnd": us(predicted(rnd, "wicon", size))}
