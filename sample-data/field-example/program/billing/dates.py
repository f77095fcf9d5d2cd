"""Calendar arithmetic for billing periods."""

from __future__ import annotations

import calendar
from datetime import date


def add_months(day: date, months: int) -> date:
    """`day` moved by `months` months (may be negative).  The day of the
    month is clamped to the length of the target month, so 31 January plus
    one month is the last day of February."""
    index = day.year * 12 + day.month - 1 + months
    year, month0 = divmod(index, 12)
    last = calendar.monthrange(year, month0 + 1)[1]
    return date(year, month0 + 1, min(day.day, last))


def next_renewal(start: date, months: int, as_of: date) -> date:
    """The first billing date after `as_of` of a plan that started on
    `start` and is billed every `months` months (start + k * months)."""
    if months == 12 and start.year < as_of.year:
        # Yearly plans can be decades old: start from this year's
        # anniversary instead of stepping through every past year.
        start = start.replace(year=as_of.year)
    k = 0
    renewal = start
    while renewal <= as_of:
        k += 1
        renewal = add_months(start, k * months)
    return renewal


def period_start(renewal: date, months: int) -> date:
    """First day of the billing period that ends at `renewal`."""
    return add_months(renewal, -months)


def month_key(day: date) -> str:
    return f"{day.year:04d}-{day.month:02d}"
