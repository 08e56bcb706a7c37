"""Accounts: registration, API tokens (many per user, listed and revoked), profiles."""
