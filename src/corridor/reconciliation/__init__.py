"""Reconciliation (issue 27 item 5): bank statements matched line by line to the payments
Corridor sent, and the exceptions an operator resolves."""
