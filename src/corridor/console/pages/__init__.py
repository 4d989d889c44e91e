"""One module per console page (or family of pages), each with its own `router`."""
