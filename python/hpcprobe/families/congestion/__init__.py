"""Congestion under load (GPCNeT): `hpcprobe congestion` and `simulate congestion`."""
