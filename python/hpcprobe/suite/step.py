"""One launch of a suite (`hpcprobe run --suite NAME`), as suites.py and the families' suite
builders (families/hpcc/suite.py) plan them."""

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence, Tuple

# Options a step takes from the records measured before it in the same run.
Sizer = Callable[[Sequence[Any]], Tuple[str, ...]]


@dataclass(frozen=True)
class SuiteStep:
    """One launch of a suite; `algorithm` is the --algo it passes, if any, and `label`
    what else tells it apart from the other launches of the same variant. `ranks`:
    the ranks it runs on (None: the run's --np); `sized(records)`: options added at
    launch from the run's records so far (main_job.py)."""

    benchmark: str
    variant: str
    bench_options: Tuple[str, ...]
    time_budget_s: float
    algorithm: Optional[str] = None
    label: Optional[str] = None
    ranks: Optional[int] = None
    sized: Optional[Sizer] = field(default=None, compare=False)

    def options(self, records: Sequence[Any]) -> Tuple[str, ...]:
        return self.bench_options + (self.sized(records) if self.sized else ())

    @property
    def name(self) -> str:
        words = (self.benchmark, self.variant, self.algorithm, self.label)
        return " ".join(word for word in words if word)
