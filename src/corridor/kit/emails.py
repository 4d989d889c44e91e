"""Email addresses: syntax (email-validator), and the domains reserved for testing
(RFC 2606, RFC 6761), which the sandbox accepts and production refuses."""

from __future__ import annotations

from email_validator import EmailNotValidError, validate_email

from corridor.kit.request_context import in_sandbox

# Top-level domains and second-level domains reserved for documentation and testing.
RESERVED_TESTING_TOP_LEVEL_DOMAINS = frozenset({"test", "example", "invalid", "localhost"})
RESERVED_TESTING_DOMAINS = frozenset({"example.com", "example.net", "example.org"})


def is_reserved_testing_domain(domain: str) -> bool:
    labels = domain.lower().rstrip(".").split(".")
    if labels[-1] in RESERVED_TESTING_TOP_LEVEL_DOMAINS:
        return True
    return ".".join(labels[-2:]) in RESERVED_TESTING_DOMAINS


def email_problem(value: str, *, sandbox: bool | None) -> str | None:
    """Why `value` is not an address to keep, or None. A reserved testing domain is fine in
    the sandbox (and outside any request), refused in production."""
    domain = value.rpartition("@")[2]
    reserved = is_reserved_testing_domain(domain) if domain else False
    try:
        # test_environment lets `.test` through; the environment decides below.
        validate_email(value, check_deliverability=False, test_environment=reserved)
    except EmailNotValidError as error:
        return f"not a valid email address: {error}"
    if reserved and sandbox is False:
        return (
            f"{domain} is a domain reserved for testing: accepted in the sandbox, not in production"
        )
    return None


def checked_email(value: str) -> str:
    """A pydantic validator: the address as sent, or ValueError with the reason."""
    problem = email_problem(value, sandbox=in_sandbox())
    if problem is not None:
        raise ValueError(problem)
    return value
