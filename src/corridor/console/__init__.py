"""The operator console: server-rendered pages at /console over the same services as the
REST API, called as the signed-in console user (docs/console.md)."""
