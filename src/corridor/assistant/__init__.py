"""The assistant: threads, messages and runs that call tools from the registry and pause
for a person's confirmation before any write."""
