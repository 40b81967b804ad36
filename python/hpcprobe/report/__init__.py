"""`hpcprobe report`: one self-contained HTML file over the records of a results
directory (docs/report.md). Families register their section in registry.py."""
