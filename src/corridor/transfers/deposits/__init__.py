"""Money coming in: deposit instructions and virtual accounts, and matching what arrives."""
