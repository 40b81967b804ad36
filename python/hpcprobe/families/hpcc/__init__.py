"""The HPCC family: dgemm, hpl, ptrans, fft, `run --suite hpcc`, `hpcprobe config` and
HPCC's summary block."""
