# Generated from corridor_client/_async/__init__.py by clients/python/codegen.py.
# Do not edit: change the async original and run `make sdk-models`.
"""The asynchronous client, written once; codegen.py rewrites it as the synchronous one."""
