"""Planning a draft: resolving its source and destination, pricing it, writing its legs."""
