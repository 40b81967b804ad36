"""The peak family: the machine's own limits (docs/kernels/peak.md): its measured clock,
theoretical and empirical flop rates, each cache level's and memory's bandwidth, the
DIMMs' and links' stated rates."""
