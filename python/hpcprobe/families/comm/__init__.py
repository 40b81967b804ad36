"""The communication family: `hpcprobe comm`, `beff`, `pairs`, and --placement."""
