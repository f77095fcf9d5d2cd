"""Plain-text report: one table per group, then totals per currency."""

from __future__ import annotations

from decimal import Decimal


def _line(row: dict, target: str | None) -> str:
    line = (
        f"  {row['renewal'].isoformat()}  {row['customer']:<24.24} "
        f"{row['plan']:<9} {row['seats']:>4}  {row['amount']:>10} {row['currency']}"
    )
    if target:
        line += f"  = {row['converted']:>10} {target}"
    return line


def to_text(groups: dict[str, list[dict]], target: str | None = None) -> str:
    if not groups:
        return "no renewals due\n"
    out = []
    totals: dict[str, Decimal] = {}
    for key, rows in groups.items():
        plural = "" if len(rows) == 1 else "s"
        out.append(f"== {key} ({len(rows)} renewal{plural})")
        for row in rows:
            out.append(_line(row, target))
            totals[row["currency"]] = totals.get(row["currency"], Decimal(0)) + row["amount"]
    out.append("")
    for currency, total in sorted(totals.items()):
        out.append(f"total {currency}: {total}")
    if target:
        grand = sum((row["converted"] for rows in groups.values() for row in rows), Decimal(0))
        out.append(f"total in {target}: {grand}")
    return "\n".join(out) + "\n"
