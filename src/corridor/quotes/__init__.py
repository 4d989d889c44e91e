"""Quotes (`quo_`): a conversion priced and locked for a short while (API.md §5)."""
