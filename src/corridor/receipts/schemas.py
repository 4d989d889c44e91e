"""Receipts' answers."""

from __future__ import annotations

from pydantic import Field

from corridor.kit.schemas import ResponseModel, Timestamp


class ReceiptRead(ResponseModel):
    id: str = Field(examples=["rcpt_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    kind: str = Field(
        description="AUTHORIZED, APPROVED, DECLINED, COMPLETED, FAILED or RETURNED",
        examples=["AUTHORIZED"],
    )
    jws: str = Field(
        description="The receipt: a compact JWS (EdDSA, Ed25519) whose header names the `kid` "
        "of a key of /.well-known/jwks.json"
    )
    created_at: Timestamp


class ReceiptList(ResponseModel):
    data: list[ReceiptRead] = Field(description="Oldest first, in the order they were issued")
