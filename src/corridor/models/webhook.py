"""Webhook endpoints, and the deliveries and attempts of each outbox event to them."""

from __future__ import annotations
