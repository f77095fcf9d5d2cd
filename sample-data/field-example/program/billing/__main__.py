"""Command line: python -m billing EXPORT.csv [options]."""

from __future__ import annotations

import argparse
import sys
from datetime import date

from . import __version__
from .dates import next_renewal
from .output import render
from .pricing import EUR_RATES, amount_due, convert
from .records import InputError, read_subscriptions


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="billing", description="Upcoming renewals of a subscription export."
    )
    parser.add_argument("export", help="CSV export, one row per subscription")
    parser.add_argument("--as-of", type=date.fromisoformat, default=date.today(),
                        help="report renewals after this day (default: today)")
    parser.add_argument("--format", choices=["text", "csv", "json"], default="text")
    parser.add_argument("--group-by", choices=["currency", "plan", "month"],
                        default="currency")
    parser.add_argument("--currency", help="also give every amount in this currency")
    parser.add_argument("--within", type=int, metavar="DAYS",
                        help="only renewals in the next DAYS days")
    parser.add_argument("--version", action="version", version=f"billing {__version__}")
    args = parser.parse_args(argv)
    if args.currency:
        args.currency = args.currency.upper()
        if args.currency not in EUR_RATES:
            parser.error(f"unknown currency {args.currency!r}")
    return args


def upcoming(subs, as_of: date, within: int | None, target: str | None) -> list[dict]:
    """One row per subscription that renews (within `within` days)."""
    rows = []
    for sub in subs:
        renewal = next_renewal(sub.start, sub.months, as_of)
        if sub.cancelled is not None and sub.cancelled <= renewal:
            continue
        if within is not None and (renewal - as_of).days > within:
            continue
        amount = amount_due(sub)
        rows.append({
            "customer": sub.customer,
            "plan": sub.plan,
            "renewal": renewal,
            "seats": sub.seats,
            "amount": amount,
            "currency": sub.currency,
            "converted": convert(amount, sub.currency, target) if target else None,
        })
    rows.sort(key=lambda row: (row["renewal"], row["customer"]))
    return rows


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        subs = read_subscriptions(args.export)
    except InputError as err:
        print(f"billing: {err}", file=sys.stderr)
        return 2
    rows = upcoming(subs, args.as_of, args.within, args.currency)
    sys.stdout.write(render(rows, args.format, args.group_by, args.currency))
    return 0


if __name__ == "__main__":
    sys.exit(main())
