"""Rows the express path read lately, kept so that the next create+submit naming the same
key, customer and accounts needs no read at all.

Nothing is trusted from here: each kept read carries its rows' versions, and the write
checks them (statements.py); a row changed since (a key revoked, a customer suspended or
renamed, an organization's configuration edited, a bank account closed) makes the write
answer STALE, write nothing, and the read is dropped. So a kept read is never more than a
guess the database confirms in the same statement, and each process keeps its own.
"""

from __future__ import annotations

from collections import OrderedDict

from corridor.transfers.express.statements import Read
from corridor.transfers.express.submit import Wanted

# Reads kept per process; the least recently used goes first (a few KB each).
known_reads_max = 2048

Names = tuple[str, Wanted]


class KnownReads:
    def __init__(self, reads_max: int = known_reads_max) -> None:
        self._reads: OrderedDict[Names, Read] = OrderedDict()
        self._reads_max = reads_max

    def get(self, secret_hash: str, wanted: Wanted) -> Read | None:
        names = (secret_hash, wanted)
        read = self._reads.get(names)
        if read is not None:
            self._reads.move_to_end(names)
        return read

    def keep(self, secret_hash: str, wanted: Wanted, read: Read) -> None:
        self._reads[(secret_hash, wanted)] = read
        self._reads.move_to_end((secret_hash, wanted))
        while len(self._reads) > self._reads_max:
            self._reads.popitem(last=False)

    def forget(self, secret_hash: str, wanted: Wanted) -> None:
        self._reads.pop((secret_hash, wanted), None)
