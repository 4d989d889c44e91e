"""Which adapter serves each rail: the sandbox adapters, unless another one is installed."""

from __future__ import annotations

from corridor.rails.ach import AchAdapter, SameDayAchAdapter
from corridor.rails.base import RailAdapter, RailName
from corridor.rails.book import BookAdapter
from corridor.rails.chains import (
    BaseAdapter,
    EthereumAdapter,
    PolygonAdapter,
    SolanaAdapter,
    TronAdapter,
)
from corridor.rails.rtp import RtpAdapter
from corridor.rails.sepa import SepaAdapter, SepaInstantAdapter
from corridor.rails.swift import SwiftAdapter
from corridor.rails.wire import WireAdapter

SANDBOX_ADAPTERS: tuple[RailAdapter, ...] = (
    AchAdapter(),
    SameDayAchAdapter(),
    WireAdapter(),
    RtpAdapter(),
    SwiftAdapter(),
    SepaAdapter(),
    SepaInstantAdapter(),
    BookAdapter(),
    EthereumAdapter(),
    BaseAdapter(),
    PolygonAdapter(),
    SolanaAdapter(),
    TronAdapter(),
)

_adapters: dict[RailName, RailAdapter] = {adapter.name: adapter for adapter in SANDBOX_ADAPTERS}
assert set(_adapters) == set(RailName), "every rail has a sandbox adapter"


def adapter_for(rail: RailName | str) -> RailAdapter:
    """The adapter serving a rail (the sandbox adapters unless another is installed)."""
    return _adapters[RailName(rail)]


def install(adapter: RailAdapter) -> RailAdapter:
    """Serve a rail with another adapter (a production one); returns the one it replaces."""
    assert isinstance(adapter, RailAdapter), adapter
    previous = _adapters[adapter.name]
    _adapters[adapter.name] = adapter
    return previous
