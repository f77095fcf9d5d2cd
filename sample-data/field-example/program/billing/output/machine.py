"""Machine-readable reports: CSV (one line per renewal) and JSON (grouped)."""

from __future__ import annotations

import csv
import io
import json

FIELDS = ["customer", "plan", "renewal", "seats", "amount", "currency"]


def _fields(target: str | None) -> list[str]:
    return FIELDS + [f"amount_{target.lower()}"] if target else FIELDS


def _plain(row: dict, target: str | None) -> dict:
    out = {
        "customer": row["customer"],
        "plan": row["plan"],
        "renewal": row["renewal"].isoformat(),
        "seats": row["seats"],
        "amount": str(row["amount"]),
        "currency": row["currency"],
    }
    if target:
        out[f"amount_{target.lower()}"] = str(row["converted"])
    return out


def to_csv(rows: list[dict], target: str | None = None) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=_fields(target), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(_plain(row, target))
    return buf.getvalue()


def to_json(groups: dict[str, list[dict]], target: str | None = None) -> str:
    doc = {key: [_plain(row, target) for row in rows] for key, rows in groups.items()}
    return json.dumps(doc, indent=2) + "\n"
