"""Agents: spending identities with their own keys, spend limits, allowlists and owner approval."""
