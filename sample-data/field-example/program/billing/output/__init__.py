"""Report writers: plain text (default), CSV and JSON."""

from __future__ import annotations

from ..dates import month_key


def group(rows: list[dict], by: str) -> dict[str, list[dict]]:
    """`rows` split by currency, plan or renewal month, keys sorted."""
    groups: dict[str, list[dict]] = {}
    for row in rows:
        if by == "plan":
            key = row["plan"]
        elif by == "month":
            key = month_key(row["renewal"])
        else:
            key = row["currency"]
        groups.setdefault(key, []).append(row)
    return dict(sorted(groups.items()))


def render(rows: list[dict], fmt: str, by: str, target: str | None = None) -> str:
    if fmt == "csv":
        from .machine import to_csv

        return to_csv(rows, target)
    if fmt == "json":
        from .machine import to_json

        return to_json(group(rows, by), target)
    from .text import to_text

    return to_text(group(rows, by), target)
