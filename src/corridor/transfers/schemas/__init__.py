"""Response and request shapes of transfers, deposits and virtual accounts."""
