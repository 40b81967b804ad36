"""Scaling SI base units for people: records keep updates/s, B/s and s; tables show
GUPS, GB/s and µs/ms/s."""

from typing import Optional, Tuple

SIGNIFICANT_DIGITS = 4

# Decimal scales, the only ones hpcprobe uses for values (binary sizes: KiB... in tables
# of sizes). Every module takes them from here.
NANO = 1e-9
MICRO = 1e-6
MILLI = 1e-3
KILO = 1e3
MEGA = 1e6    # IMB's MB/s is 10^6 B/s
GIGA = 1e9    # GB/s as STREAM and HPCC print them, GUPS, GFLOP/s
TERA = 1e12

# unit -> (divisor, label) used whatever the magnitude: rates are compared across
# machines, so one fixed scale per unit reads better than auto-prefixes.
_FIXED_SCALES = {
    "updates/s": (GIGA, "GUPS"),
    "B/s": (GIGA, "GB/s"),
    "flop/s": (GIGA, "GFLOP/s"),
    "Hz": (GIGA, "GHz"),
}


# Counts are exact integers; 4 significant digits would hide the last ones.
_COUNT_UNITS = ("updates", "words", "flop")


def _time_scale(seconds: float) -> Tuple[float, str]:
    magnitude = abs(seconds)
    if magnitude != 0 and magnitude < MILLI:
        return MICRO, "µs"
    if magnitude != 0 and magnitude < 1:
        return MILLI, "ms"
    return 1.0, "s"


def _byte_scale(size: float) -> Tuple[float, str]:
    for divisor, label in ((TERA, "TB"), (GIGA, "GB"), (MEGA, "MB"), (KILO, "kB")):
        if abs(size) >= divisor:
            return divisor, label
    return 1.0, "B"


def scale_for(unit: str, magnitude: Optional[float]) -> Tuple[float, str]:
    """(divisor, label) to show values of `unit` near `magnitude`."""
    if unit in _FIXED_SCALES:
        return _FIXED_SCALES[unit]
    if unit == "s":
        return _time_scale(magnitude or 0.0)
    if unit == "B":
        return _byte_scale(magnitude or 0.0)
    if unit == "1":
        return 1.0, ""
    return 1.0, unit


def format_number(value: Optional[float], divisor: float = 1.0) -> str:
    """`value / divisor` with 4 significant digits; an em dash when there is no value."""
    if value is None:
        return "—"
    return f"{value / divisor:.{SIGNIFICANT_DIGITS}g}"


def format_quantity(value: Optional[float], unit: str) -> str:
    """e.g. 1.234e8 updates/s -> "0.1234 GUPS"; 2.5e-5 s -> "25 µs"."""
    if value is None:
        return format_number(None)
    if unit in _COUNT_UNITS and float(value).is_integer():
        return f"{int(value)} {unit}"
    divisor, label = scale_for(unit, value)
    return f"{format_number(value, divisor)} {label}".rstrip()


# What a table shows where a figure is missing.
MISSING = "—"
_BINARY_UNITS = ((1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB"))


def binary_size(value: Optional[float]) -> str:
    """Bytes with binary prefixes: 8 -> "8 B", 1536 -> "1.5 KiB", 2^30 -> "1 GiB"."""
    if value is None:
        return MISSING
    for divisor, label in _BINARY_UNITS:
        if abs(value) >= divisor:
            return f"{value / divisor:.4g} {label}"
    return f"{value:.4g} B"
