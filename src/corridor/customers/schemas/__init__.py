"""Request and response shapes of customers (customer.py) and their associated entities (entities.py)."""
