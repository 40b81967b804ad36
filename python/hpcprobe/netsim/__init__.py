"""The network simulator (paper 004's eq. 1): networks (torus, mesh: network.py; the
two-level tree: tree.py), the traffic patterns (patterns.py), routing and link loads
(routing.py) and the max-min fair simulation (simulate.py). Shared by the contention
family (`hpcprobe simulate`, its report) and the congestion family (its model); it imports
no family."""
