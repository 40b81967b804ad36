"""`hpcprobe study`: the papers' tables and figures as sweeps of launches (declare.py: what a
study is; papers.py: the papers' data files; engine.py: running one; table.py: its table in
the paper's layout beside the paper's own rows)."""
