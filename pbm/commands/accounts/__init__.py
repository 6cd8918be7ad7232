"""Accounts: signup and its settings, confirming an address, the limits against floods of challenges."""
