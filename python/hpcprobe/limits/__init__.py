"""The machine's limits beside every figure (issue 41): the ceilings a run's `peak` records
and PingPong measured (ceilings.py), the bound each record's figure has under them
(bounds.py, records.py), the figures far below their bound (findings.py) and the
roofline (roofline.py).

A shared layer: it imports no family and reads records as data, by benchmark, variant and
metric names, so that any family's records get their limits without the family knowing
of them (docs/limits.md)."""
