"""Payment rails: one interface (`corridor.rails.base`) over sandbox adapters for ACH,
same-day ACH, Fedwire, RTP, SWIFT, SEPA, SEPA Instant, book transfers and five chains."""
