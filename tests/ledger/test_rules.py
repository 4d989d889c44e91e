"""Properties of the double-entry rules, over generated entries (pure, no database)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corridor.ledger import rules

CURRENCIES = ("USD", "USDC")
ACCOUNTS = {
    # Customer balance accounts (never below zero) and system accounts (may go negative).
    "acc_customer_usd_a": ("USD", False),
    "acc_customer_usd_b": ("USD", False),
    "acc_customer_usdc": ("USDC", False),
    "acc_system_usd": ("USD", True),
    "acc_system_usdc": ("USDC", True),
}
amounts = st.integers(min_value=1, max_value=10**12)


@st.composite
def movements(draw) -> tuple[rules.Line, ...]:
    currency = draw(st.sampled_from(CURRENCIES))
    candidates = sorted(account for account, (code, _) in ACCOUNTS.items() if code == currency)
    debit, credit = draw(st.lists(st.sampled_from(candidates), min_size=2, max_size=2, unique=True))
    return rules.movement(
        debit_account_id=debit, credit_account_id=credit, amount=draw(amounts), currency=currency
    )


@st.composite
def entries(draw) -> tuple[rules.Line, ...]:
    """An entry of one to four movements, possibly in several currencies, lines shuffled."""
    parts = draw(st.lists(movements(), min_size=1, max_size=4))
    lines = [line for part in parts for line in part]
    return tuple(draw(st.permutations(lines)))


@given(entries())
def test_every_entry_the_rules_build_sums_to_zero_in_each_currency(lines):
    entry = rules.check_entry(lines)
    assert len(entry) >= 2
    assert all(type(line.amount) is int and line.amount != 0 for line in entry)
    assert all(total == 0 for total in rules.sums_by_currency(entry).values())


@given(entries(), st.data())
def test_an_entry_knocked_out_of_balance_is_always_refused(lines, data):
    index = data.draw(st.integers(0, len(lines) - 1))
    delta = data.draw(st.integers(-(10**6), 10**6).filter(lambda d: d != 0))
    line = lines[index]
    if line.amount + delta == 0:
        delta += 1 if delta > 0 else -1
    unbalanced = list(lines)
    unbalanced[index] = rules.Line(line.account_id, line.amount + delta, line.currency)
    with pytest.raises(rules.InvalidEntry):
        rules.check_entry(unbalanced)


@given(
    st.lists(
        st.tuples(
            st.sampled_from(sorted(ACCOUNTS)),
            st.integers(-(10**9), 10**9),
            st.sampled_from(CURRENCIES),
        ),
        min_size=0,
        max_size=8,
    )
)
def test_any_list_of_lines_is_refused_unless_it_balances_per_currency(raw):
    lines = [rules.Line(account, amount, code) for account, amount, code in raw]
    balanced = (
        2 <= len(lines)
        and all(line.amount != 0 for line in lines)
        and all(total == 0 for total in rules.sums_by_currency(lines).values())
    )
    if balanced:
        assert rules.check_entry(lines) == tuple(lines)
    else:
        with pytest.raises(rules.InvalidEntry):
            rules.check_entry(lines)


@pytest.mark.parametrize("amount", [0, 1.0, True, "100", None])
def test_amounts_must_be_non_zero_ints(amount):
    with pytest.raises(rules.InvalidEntry):
        rules.check_entry([rules.Line("acc_a", amount, "USD"), rules.Line("acc_b", -1, "USD")])


def test_a_movement_needs_two_accounts_and_a_positive_amount():
    for amount in (0, -5):
        with pytest.raises(rules.InvalidEntry):
            rules.movement(
                debit_account_id="a", credit_account_id="b", amount=amount, currency="USD"
            )
    with pytest.raises(rules.InvalidEntry):
        rules.movement(debit_account_id="a", credit_account_id="a", amount=5, currency="USD")


def _opening_states() -> dict[str, rules.AccountState]:
    return {
        account: rules.AccountState(account, code, allow_negative, posted=0)
        for account, (code, allow_negative) in ACCOUNTS.items()
    }


@settings(max_examples=300)
@given(st.lists(entries(), min_size=1, max_size=30))
def test_applying_valid_entries_never_overdraws_and_balances_are_sums_of_postings(sequence):
    states = _opening_states()
    postings: dict[str, list[int]] = {account: [] for account in states}
    for lines in sequence:
        plan = rules.plan_entry(states, lines)
        if isinstance(plan, rules.Overdraft):
            account = states[plan.account_id]
            assert not account.allow_negative
            assert plan.available == account.available
            assert plan.debit > plan.available
            continue
        assert isinstance(plan, rules.EntryPlan)
        for planned in plan.postings:
            postings[planned.line.account_id].append(planned.line.amount)
            assert planned.balance_after == sum(postings[planned.line.account_id])
        states.update(plan.accounts_after)
        for account in states.values():
            assert account.posted == sum(postings[account.account_id])
            if not account.allow_negative:
                assert account.available >= 0
        for code in CURRENCIES:
            assert sum(a.posted for a in states.values() if a.currency == code) == 0


@given(amounts, amounts, st.integers(0, 10**9), st.integers(0, 10**9))
def test_holds_count_against_available_and_total_is_available_plus_pending(
    posted, debit, pending_debits, pending_credits
):
    account = rules.AccountState(
        "acc_customer_usd_a", "USD", False, posted, pending_debits, pending_credits
    )
    states = {account.account_id: account, "acc_system_usd": _opening_states()["acc_system_usd"]}
    plan = rules.plan_entry(
        states,
        rules.movement(
            debit_account_id=account.account_id,
            credit_account_id="acc_system_usd",
            amount=debit,
            currency="USD",
        ),
    )
    fits = debit <= posted - pending_debits
    assert isinstance(plan, rules.EntryPlan if fits else rules.Overdraft)
    shown = rules.balances(
        posted=posted, pending_debits=pending_debits, pending_credits=pending_credits
    )
    assert shown.available == posted - pending_debits
    assert shown.pending == pending_credits
    assert shown.total == shown.available + shown.pending


def test_a_credit_is_never_refused_even_to_an_account_already_short():
    short = rules.AccountState("acc_customer_usd_a", "USD", False, posted=10, pending_debits=50)
    states = {short.account_id: short, "acc_system_usd": _opening_states()["acc_system_usd"]}
    plan = rules.plan_entry(
        states,
        rules.movement(
            debit_account_id="acc_system_usd",
            credit_account_id=short.account_id,
            amount=5,
            currency="USD",
        ),
    )
    assert isinstance(plan, rules.EntryPlan)
    assert plan.accounts_after[short.account_id].posted == 15


def test_a_balance_outside_the_column_is_refused():
    system = rules.AccountState(
        "acc_system_usd", "USD", True, posted=-rules.balance_minor_units_max
    )
    customer = rules.AccountState("acc_customer_usd_a", "USD", False, posted=0)
    plan = rules.plan_entry(
        {system.account_id: system, customer.account_id: customer},
        rules.movement(
            debit_account_id=system.account_id,
            credit_account_id=customer.account_id,
            amount=1,
            currency="USD",
        ),
    )
    assert plan == rules.BalanceOutOfRange(account_id=system.account_id, currency="USD")


def test_lines_on_unknown_accounts_or_in_the_wrong_currency_are_bugs():
    states = _opening_states()
    with pytest.raises(rules.InvalidEntry):
        rules.plan_entry(
            states,
            [rules.Line("acc_system_usd", -1, "USD"), rules.Line("acc_nowhere", 1, "USD")],
        )
    with pytest.raises(rules.InvalidEntry):
        rules.plan_entry(
            states,
            [rules.Line("acc_system_usdc", -1, "USD"), rules.Line("acc_customer_usd_a", 1, "USD")],
        )
