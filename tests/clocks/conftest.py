"""The transfer tests' fixtures, for the clock's tests of due work."""

from tests.transfers.conftest import install_rail  # noqa: F401
