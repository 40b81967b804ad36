"""tc on each end of a link: its rate, delay and any loss a fault asked for, applied to
the end's egress, so that both directions are shaped alike.

    root htb 1: ── class 1:1 at the link's rate ── [netem delay, when there is one]
                └─ class 1:2, a pfifo of length 0: packets sent there are dropped
    filter: classic BPF that sends a random fraction of packets to 1:2 (loss)

Loss is done this way, not with netem, because it needs only htb and cls_bpf, which
kernels without netem (such as the one this was built on) still have; delay has no such
substitute and needs netem.
"""

from typing import List, Optional

from hpcprobe.cluster.model import Endpoint, Link

# A link tc does not shape (the head's) gets this rate when a fault needs a class.
UNSHAPED_RATE_BIT_PER_S = 100e9
# Any quantum from 1000 to 200000 bytes keeps htb from warning; one class carries all.
HTB_QUANTUM_BYTES = 60000
# Classic BPF: A = random u32; A >= threshold ? class 1:1 : class 1:2.
_SKF_AD_RANDOM = 0xFFFFF000 + 56
_PASS_CLASS = 0x10001
_DROP_CLASS = 0x10002


def _tc(end: Endpoint, *words: str) -> List[str]:
    return ["tc", "-n", end.namespace, *words[:2], "dev", end.interface, *words[2:]]


def loss_bytecode(loss_fraction: float) -> str:
    """tc's `bpf bytecode` text dropping `loss_fraction` of the packets at random."""
    threshold = min(int(round(loss_fraction * 2 ** 32)), 2 ** 32 - 1)
    program = [(0x20, 0, 0, _SKF_AD_RANDOM), (0x35, 0, 1, threshold),
               (0x06, 0, 0, _PASS_CLASS), (0x06, 0, 0, _DROP_CLASS)]
    return ",".join([str(len(program))] + [" ".join(map(str, op)) for op in program])


def _rate(rate_bit_per_s: float) -> str:
    return f"{int(round(rate_bit_per_s))}bit"


def end_commands(end: Endpoint, rate_bit_per_s: Optional[float], delay_s: float,
                 loss_fraction: float) -> List[List[str]]:
    """The commands that give `end` this shaping, after its root qdisc is removed."""
    if rate_bit_per_s is None and delay_s == 0 and loss_fraction == 0:
        return []
    rate = _rate(rate_bit_per_s or UNSHAPED_RATE_BIT_PER_S)
    htb_class = ["htb", "rate", rate, "ceil", rate, "quantum", str(HTB_QUANTUM_BYTES)]
    commands = [
        _tc(end, "qdisc", "add", "root", "handle", "1:", "htb", "default", "1"),
        _tc(end, "class", "add", "parent", "1:", "classid", "1:1", *htb_class),
    ]
    if delay_s > 0:
        commands.append(_tc(end, "qdisc", "add", "parent", "1:1", "handle", "10:", "netem",
                            "delay", f"{delay_s * 1e6:.3f}us"))
    if loss_fraction > 0:
        commands += [
            _tc(end, "class", "add", "parent", "1:", "classid", "1:2", *htb_class),
            _tc(end, "qdisc", "add", "parent", "1:2", "handle", "20:", "pfifo", "limit", "0"),
            _tc(end, "filter", "add", "parent", "1:", "protocol", "all", "prio", "1",
                "bpf", "bytecode", loss_bytecode(loss_fraction)),
        ]
    return commands


def clear_command(end: Endpoint) -> List[str]:
    """Remove the end's root qdisc (fails harmlessly where there is none)."""
    return _tc(end, "qdisc", "del", "root")


def link_commands(link: Link) -> List[List[str]]:
    """Both ends' shaping as the link and its fault now say (rate, delay, loss)."""
    commands: List[List[str]] = []
    for end in link.ends:
        commands += end_commands(end, link.effective_rate_bit_per_s, link.effective_delay_s,
                                 link.fault.loss_fraction)
    return commands
