"""The request log (issue 28): every API request made with an API key or an OAuth token,
kept for the last days and searchable (`GET /v1/request-logs`, the console's Logs page,
`corridor logs tail`), as Stripe's Logs."""
