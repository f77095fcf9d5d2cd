"""What a subscription costs at its next renewal."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

CENT = Decimal("0.01")

# Reference rates: value of one unit of each currency in euros.
EUR_RATES = {
    "EUR": Decimal("1"),
    "USD": Decimal("0.92"),
    "GBP": Decimal("1.17"),
    "CHF": Decimal("1.04"),
    "SEK": Decimal("0.087"),
}

# Volume discount on the seat price: (minimum seats, percent off), largest first.
SEAT_TIERS = [(100, 20), (25, 10), (10, 5)]

COUPONS = {
    "WELCOME10": ("percent", 10),
    "EDU50": ("percent", 50),
    "LOYAL5": ("fixed", 5),
}


def seat_discount(seats: int) -> int:
    for minimum, percent in SEAT_TIERS:
        if seats >= minimum:
            return percent
    return 0


def amount_due(sub) -> Decimal:
    """The invoice amount of `sub`'s next billing period, in its currency."""
    months = sub.months
    if months == 12:
        months = 10  # yearly plans: two months free
    net = sub.price * sub.seats * months
    percent = seat_discount(sub.seats)
    if percent:
        net -= net * percent / 100
    if sub.coupon:
        kind, value = COUPONS.get(sub.coupon, ("unknown", 0))
        if kind == "percent":
            net -= net * value / 100
        elif kind == "fixed":
            net = max(net - value, Decimal(0))
    return net.quantize(CENT, ROUND_HALF_EVEN)


def convert(amount: Decimal, currency: str, target: str) -> Decimal:
    if currency == target:
        return amount
    return (amount * EUR_RATES[currency] / EUR_RATES[target]).quantize(CENT)
