"""What a PATCH of a DRAFT does to its source and destination (docs/decisions.md, "PATCH
replaces what it names").

A PATCH is a JSON merge (a field sent replaces the stored one, a field sent as null is
removed), with two rules on top, so that the draft after any sequence of PATCHes is the
draft a create with the same final intent makes:

1. **Naming a kind replaces the kind.** A source or destination is one of a few kinds,
   each named by its id field: a balance account (`accountId`), an external account or
   wallet (`externalAccountId`), an address (`toAddress`, destinations only); a source
   without either id is a deposit. A PATCH that names a kind other than the stored one
   replaces the whole description of the old kind: its id, and `currency`, `paymentRail`
   (and a source's `fromAddress` and `refundAccountId`) unless the PATCH sends them too.
2. **A rail change drops the old rail's references.** When the destination's rail changes
   (including to none, a balance account's BOOK), the references bound to another rail
   (`achReference` to ACH, `wireMessage` to WIRE, …) go, unless the same PATCH sends them.
   `payoutReference` belongs to no rail and stays.

Pure: applied by the service to the stored request documents (camelCase keys).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from corridor.rails.base import CHAIN_RAILS, RailName

DESTINATION_KINDS = ("accountId", "externalAccountId", "toAddress")
SOURCE_KINDS = ("accountId", "externalAccountId")
# What describes an end besides its id: replaced along with the kind.
_DESTINATION_KIND_FIELDS = ("currency", "paymentRail")
_SOURCE_KIND_FIELDS = ("currency", "paymentRail", "fromAddress", "refundAccountId")
# The rails each reference is sent over (payoutReference: any rail).
RAIL_REFERENCES: dict[str, frozenset[str]] = {
    "achReference": frozenset({RailName.ACH, RailName.ACH_SAME_DAY}),
    "wireMessage": frozenset({RailName.WIRE}),
    "rtpReference": frozenset({RailName.RTP}),
    "sepaReference": frozenset({RailName.SEPA, RailName.SEPA_INSTANT}),
    "swiftReference": frozenset({RailName.SWIFT}),
    "correspondentBankName": frozenset({RailName.SWIFT}),
    "correspondentBankSwiftCode": frozenset({RailName.SWIFT}),
    "correspondentAccountNumber": frozenset({RailName.SWIFT}),
    "blockchainMemo": frozenset(CHAIN_RAILS),
}


def merged(stored: Mapping[str, Any], sent: Mapping[str, Any]) -> dict[str, Any]:
    """JSON merge: fields sent replace the stored ones; a field sent as null is removed."""
    result = dict(stored)
    for key, value in sent.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = value
    return result


def kind_of(request: Mapping[str, Any], kinds: tuple[str, ...]) -> str | None:
    """The kind a stored request names: its first id field with a value."""
    return next((kind for kind in kinds if request.get(kind)), None)


def _replacing_kind(
    stored: Mapping[str, Any],
    sent: Mapping[str, Any],
    kinds: tuple[str, ...],
    kind_fields: tuple[str, ...],
) -> dict[str, Any]:
    """`stored` without the old kind's description when `sent` names another kind."""
    named = [kind for kind in kinds if sent.get(kind)]
    if not named or kind_of(stored, kinds) in named:
        return dict(stored)
    return {key: value for key, value in stored.items() if key not in (*kinds, *kind_fields)}


def destination_after_patch(stored: Mapping[str, Any], sent: Mapping[str, Any]) -> dict[str, Any]:
    """The destination request after a PATCH's `destination` (rules 1 and 2)."""
    result = merged(
        _replacing_kind(stored, sent, DESTINATION_KINDS, _DESTINATION_KIND_FIELDS), sent
    )
    rail = result.get("paymentRail")
    if rail == stored.get("paymentRail"):
        return result
    return {
        key: value
        for key, value in result.items()
        if key in sent or key not in RAIL_REFERENCES or rail in RAIL_REFERENCES[key]
    }


def source_after_patch(stored: Mapping[str, Any], sent: Mapping[str, Any]) -> dict[str, Any]:
    """The source request after a PATCH's `source` (rule 1)."""
    return merged(_replacing_kind(stored, sent, SOURCE_KINDS, _SOURCE_KIND_FIELDS), sent)
