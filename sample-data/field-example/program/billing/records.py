"""Reading the subscription export: one CSV row per subscription."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Optional

from .pricing import EUR_RATES

# Billing period of every plan, in months.
PLANS = {"monthly": 1, "quarterly": 3, "yearly": 12}


class InputError(Exception):
    """A row of the export that cannot be billed; the message says where."""


@dataclass
class Subscription:
    customer: str
    plan: str
    start: date
    price: Decimal  # monthly list price of one seat
    currency: str
    seats: int = 1
    coupon: str = ""
    cancelled: Optional[date] = None

    @property
    def months(self) -> int:
        return PLANS[self.plan]


def _date(text: str, where: str) -> date:
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise InputError(f"{where}: not a date: {text!r}") from None


def _amount(text: str, where: str) -> Decimal:
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        raise InputError(f"{where}: not an amount: {text!r}") from None
    if value < 0:
        raise InputError(f"{where}: negative price {value}")
    return value


def read_subscriptions(path: str) -> list[Subscription]:
    """All subscriptions of the export at `path`, in file order."""
    subs = []
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        for row in reader:
            where = f"{path}:{reader.line_num}"
            plan = row["plan"].strip().lower()
            if plan not in PLANS:
                raise InputError(f"{where}: unknown plan {row['plan']!r}")
            currency = row["currency"].strip().upper() or "EUR"
            if currency not in EUR_RATES:
                raise InputError(f"{where}: unknown currency {currency!r}")
            seats = (row.get("seats") or "1").strip()
            if not seats.isdigit() or int(seats) == 0:
                raise InputError(f"{where}: bad seat count {seats!r}")
            cancelled = (row.get("cancelled") or "").strip()
            subs.append(
                Subscription(
                    customer=row["customer"].strip(),
                    plan=plan,
                    start=_date(row["start"], where),
                    price=_amount(row["price"], where),
                    currency=currency,
                    seats=int(seats),
                    coupon=(row.get("coupon") or "").strip().upper(),
                    cancelled=_date(cancelled, where) if cancelled else None,
                )
            )
    if not subs:
        raise InputError(f"{path}: no subscriptions")
    return subs
