"""HPCC's summary block and balance ratios from records, shared by the families whose
commands write the block (`--hpcc-summary`: ra, stream, comm, hpcc), by `run` and by
`compare`: block.py (the formats and the whole block), keys.py (HPL, DGEMM, PTRANS, FFT
and the machine), beff.py (b_eff's keys), stream.py (STREAM's best rates), summary.py
(the block in HPCC's order), balance.py and balance_report.py (paper 003's ratios and
their Kiviat), write.py (the file a command writes). It imports no family."""
