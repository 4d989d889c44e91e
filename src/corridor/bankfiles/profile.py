"""Who Corridor is to its bank, and which rails go through files (settings `bank_*`)."""

from __future__ import annotations

from corridor.config import Settings
from corridor.rails import registry
from corridor.rails.base import RailName
from corridor.rails.files import FILE_RAILS, BankProfile, FileRailAdapter
from corridor.rails.registry import SANDBOX_ADAPTERS
from corridor.rails.sandbox import BatchRailAdapter


def profile_of(settings: Settings) -> BankProfile:
    return BankProfile(
        odfi_routing_number=settings.bank_odfi_routing_number,
        odfi_name=settings.bank_odfi_name,
        company_id=settings.bank_company_id,
        company_name=settings.bank_debtor_name,
        debtor_name=settings.bank_debtor_name,
        debtor_iban=settings.bank_debtor_iban,
        debtor_bic=settings.bank_debtor_bic,
        upload_required=settings.bank_sftp_host is not None,
    )


def file_rail(rail: RailName, profile: BankProfile) -> FileRailAdapter:
    """A file rail over the sandbox adapter of `rail` (its schedule and references)."""
    inner = next(adapter for adapter in SANDBOX_ADAPTERS if adapter.name == rail)
    assert isinstance(inner, BatchRailAdapter) and rail in FILE_RAILS
    return FileRailAdapter(inner, profile)


def install_file_rails(settings: Settings) -> list[RailName]:
    """Serve the rails named by `bank_file_rails` through files (the process's registry)."""
    profile = profile_of(settings)
    installed = []
    for name in sorted(settings.file_rails):
        rail = RailName(name)
        registry.install(file_rail(rail, profile))
        installed.append(rail)
    return installed
