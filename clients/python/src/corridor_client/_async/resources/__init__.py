"""The groups of operations, one module per domain of the server."""
