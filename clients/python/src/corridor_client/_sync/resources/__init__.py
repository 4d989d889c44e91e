# Generated from corridor_client/_async/resources/__init__.py by clients/python/codegen.py.
# Do not edit: change the async original and run `make sdk-models`.
"""The groups of operations, one module per domain of the server."""
