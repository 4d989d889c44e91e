"""The tamper-evident audit chain (API.md 9, issue 25): every agent decision, owner
decision, agent key issued or revoked and write-tool confirmation, appended in the
decision's own transaction to the organization's hash chain (`service.append`), listed and
exported (`GET /v1/audit-events`), and verified (`corridor audit verify`, the console)."""
