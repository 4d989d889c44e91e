"""Money going back: refunds of funds that stopped before payout, and returned payouts."""
