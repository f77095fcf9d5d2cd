"""billing: upcoming renewals of a subscription export.

Reads a CSV export of subscriptions (one row per subscription), works out
when each one renews next and what it will cost, and prints a report.

    python -m billing EXPORT.csv [--as-of DATE] [--format text|csv|json]
                                 [--group-by currency|plan|month]
                                 [--currency CODE] [--within DAYS]
"""

__version__ = "1.0"
