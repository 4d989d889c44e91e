"""The asynchronous client, written once; codegen.py rewrites it as the synchronous one."""
