"""The organizations domain's errors."""

from __future__ import annotations

from corridor.kit.errors import Conflict


class OrganizationsTooDeep(Conflict):
    """Child organizations nest to a bounded depth."""

    def __init__(self, depth_max: int) -> None:
        super().__init__(f"Organizations nest at most {depth_max} levels deep")
