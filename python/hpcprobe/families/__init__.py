"""The benchmark families of hpcprobe, one package each (docs/adding-a-kernel.md)."""
