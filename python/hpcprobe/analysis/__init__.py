"""Analysis of records read back: robust statistics with stability checks (stats),
merging repeated launches (merge), cross-system comparison (compare) and paper 003's
HPL-normalised balance (balance), and the records of one input grouped by where their
ranks ran (placement_view, `compare --by placement`)."""
