"""The console's refusals."""

from __future__ import annotations

from corridor.kit.errors import CorridorError


class SignInRequired(CorridorError):
    """No console session, or one that expired or was signed out: the page sends the
    person to sign-in (ConsoleRoute turns this into the redirect)."""

    status, code = 401, "unauthorized"

    def __init__(self, *, expired: bool) -> None:
        super().__init__("Sign in to the console")
        self.expired = expired
