"""The hosted verification page's errors: a link that does not open a page."""

from __future__ import annotations

from corridor.kit.errors import CorridorError


class LinkInvalid(CorridorError):
    """Unknown session, wrong token, or malformed: all look the same."""

    status, code = 404, "verification_link_invalid"

    def __init__(self) -> None:
        super().__init__("This verification link is not valid")


class LinkExpired(CorridorError):
    status, code = 410, "verification_link_expired"

    def __init__(self) -> None:
        super().__init__("This verification link has expired; ask for a new one")


class LinkUsed(CorridorError):
    status, code = 409, "verification_link_used"

    def __init__(self) -> None:
        super().__init__("This verification has been submitted already")
