"""The HPCC family: dgemm, hpl, ptrans, fft, `run --suite hpcc` and HPCC's summary block."""
