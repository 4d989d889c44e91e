"""Webhooks: endpoints, signed at-least-once delivery of outbox events, history and recovery."""
