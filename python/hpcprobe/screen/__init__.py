"""`hpcprobe screen`: which node of an allocation is slow, and which link is bad."""
