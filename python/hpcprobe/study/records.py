"""What a study's rows read records with (records are untrusted input: any field may be
missing or of the wrong type)."""

from typing import Any, Dict, List, Optional, Sequence

from hpcprobe.records import number, section_of

Record = Dict[str, Any]


def usable(records: Sequence[object]) -> List[Record]:
    """Records a row may use: objects with status "ok" whose validation did not fail."""
    return [record for record in records if isinstance(record, dict)
            and record.get("status") == "ok"
            and section_of(record, "validation").get("verdict") != "failed"]


def ranks_of(record: Optional[Record]) -> Optional[int]:
    """The ranks the record ran on (layout.ranks), None when it does not say."""
    ranks = number(section_of(record, "layout").get("ranks"))
    return int(ranks) if ranks is not None and ranks >= 1 and ranks.is_integer() else None
