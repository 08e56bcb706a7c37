"""Bots and their immutable versions: upload, validation, qualification, activation."""
