"""Verdicts of `hpcprobe screen` on links (docs/screen.md, "Links"): a node pair is bad
when it is worse than the median of all links by the link ratio and both its ends are
fine elsewhere; a node whose every link is that bad, while the node itself is fine and
the other links are good, has a bad link of its own (its NIC, cable or switch port):
the pair figures alone cannot tell it from one of its pairs, the rest of the fleet can."""

import statistics
from dataclasses import replace
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from hpcprobe.screen.verdicts import (BAD, DEFAULTS, NOT_FINE, OK, UNKNOWN, LinkVerdict,
                                      NodeVerdict, PairFigure, Thresholds, figure_failure,
                                      ratio_text, worse)

# The `b` of a node's own link: every pair of it, not one other node.
OWN_LINK = "*"


def _group_pairs(pairs: Sequence[PairFigure]) -> Dict[str, Dict[Tuple[str, str],
                                                               List[PairFigure]]]:
    """check -> link (first-seen orientation) -> its figures, in first-seen order."""
    by_check: Dict[str, Dict[Tuple[str, str], List[PairFigure]]] = {}
    for pair in pairs:
        if pair.a == pair.b:
            raise ValueError(f"a link from host {pair.a!r} to itself: a pair is two hosts")
        links = by_check.setdefault(pair.check, {})
        key = (pair.b, pair.a) if (pair.b, pair.a) in links else (pair.a, pair.b)
        seen = links.setdefault(key, [])
        if seen and seen[0].higher_is_better != pair.higher_is_better:
            raise ValueError(f"check {pair.check!r} has figures of both directions")
        seen.append(pair)
    return by_check


def _end_trouble(end: str, link: Tuple[str, str], ratios: Mapping[Tuple[str, str], float],
                 status_of: Mapping[str, str], t: Thresholds, hib: bool) -> Optional[str]:
    """Why `end` makes a bad-looking link unjudgeable (None: it is fine)."""
    if status_of.get(end) in NOT_FINE:
        return f"{end} is {status_of[end]}"
    others = [ratio for other, ratio in ratios.items() if end in other and other != link]
    if not any(not worse(ratio, t.link_ratio, hib) for ratio in others):
        return f"{end} has no other good link (the node rather than this link?)"
    return None


def _judge_link_check(check: str, links: Mapping[Tuple[str, str], List[PairFigure]],
                      status_of: Mapping[str, str], t: Thresholds) -> List[LinkVerdict]:
    hib = next(iter(links.values()))[0].higher_is_better
    values = {link: statistics.median(good) for link, figures in links.items()
              if (good := [float(f.value) for f in figures  # type: ignore[arg-type]
                           if figure_failure(f.value, f.validated) is None])}
    centre = statistics.median(values.values()) if values else None
    ratios = {link: value / centre for link, value in values.items()} if centre else {}
    verdicts = []
    for link in links:
        if link not in values:
            verdicts.append(LinkVerdict(*link, check, None, None, UNKNOWN,
                                        "no validated positive figure"))
            continue
        ratio, said = ratios[link], ratio_text(ratios[link], "median of all links")
        if len(values) - 1 < t.min_peers:
            status, said = UNKNOWN, (f"{said}, but only {len(values)} links measured: "
                                     f"fewer than {t.min_peers} others cannot judge it")
        elif not worse(ratio, t.link_ratio, hib):
            status = OK
        else:
            trouble = [why for end in link
                       if (why := _end_trouble(end, link, ratios, status_of, t, hib))]
            status = UNKNOWN if trouble else BAD
            said += f"; {'; '.join(trouble)}" if trouble else "; both ends good elsewhere"
        verdicts.append(LinkVerdict(*link, check, values[link], ratio, status, said))
    return verdicts + _own_links(check, ratios, values, status_of, t, hib)


def judge_links(pairs: Sequence[PairFigure], nodes: Sequence[NodeVerdict],
                thresholds: Thresholds = DEFAULTS) -> List[LinkVerdict]:
    """Every link's verdict per check (checks, then links, in first-seen order, then the
    nodes' own bad links). A link is bad only when its figure (the median of its
    measurements) is worse than `link_ratio` x the median of all links of that check
    AND both ends are fine: not slow, failed or suspect, and each with another link of
    that check within the ratio. A bad-looking link whose ends are not both fine is
    "unknown", with the reason; where the end is a fine node whose every link is bad,
    that node's own link (b = OWN_LINK) is bad."""
    status_of = {node.host: node.status for node in nodes}
    verdicts: List[LinkVerdict] = []
    for check, links in _group_pairs(pairs).items():
        verdicts.extend(_judge_link_check(check, links, status_of, thresholds))
    return verdicts


def _own_links(check: str, ratios: Mapping[Tuple[str, str], float],
               values: Mapping[Tuple[str, str], float], status_of: Mapping[str, str],
               t: Thresholds, hib: bool) -> List[LinkVerdict]:
    """A bad own link for each fine node with at least two links, all worse than the
    ratio, while at least min_peers links without it are within the ratio."""
    # One pass over the links: a screen of 4096 nodes judges a million of them, and a
    # scan of all links per node would be billions of steps.
    good_of = {link: not worse(ratio, t.link_ratio, hib) for link, ratio in ratios.items()}
    mine_of: Dict[str, List[Tuple[str, str]]] = {}
    for link in ratios:
        for end in link:
            mine_of.setdefault(end, []).append(link)
    all_good = sum(good_of.values())
    found = []
    for host, mine in mine_of.items():
        good = all_good - sum(good_of[link] for link in mine)  # good links without it
        if (len(mine) < 2 or status_of.get(host) in NOT_FINE or good < t.min_peers
                or any(good_of[link] for link in mine)):
            continue
        value = statistics.median(values[link] for link in mine)
        ratio = statistics.median(ratios[link] for link in mine)
        found.append(LinkVerdict(
            host, OWN_LINK, check, value, ratio, BAD,
            f"every one of its {len(mine)} links {ratio_text(ratio, 'median of all links')} "
            f"(median), {good} links without it good, the node itself "
            f"{status_of.get(host, 'not judged')}: its own link (NIC, cable, switch port)"))
    return found


def confirm_links(first: Sequence[LinkVerdict],
                  again: Sequence[LinkVerdict]) -> List[LinkVerdict]:
    """The links after a repeat of their checks: a bad link stays bad where the repeat
    judges it bad too, and is ok where it does not ("bad once", with both reasons); a
    link not bad at first is as it was."""
    second = {(link.a, link.b, link.check): link for link in again}
    found = []
    for link in first:
        if link.status != BAD:
            found.append(link)
            continue
        redone = second.get((link.a, link.b, link.check))
        said = "not measured" if redone is None else f"{redone.status}: {redone.reason}"
        if redone is not None and redone.status == BAD:
            found.append(replace(link, reason=f"{link.reason}; repeat {said}: confirmed"))
        else:
            found.append(replace(link, status=OK, reason=f"bad once ({link.reason}); "
                                 f"repeat {said}: not reproduced"))
    return found
