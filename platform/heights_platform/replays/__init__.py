"""Replays: immutable, compressed, checksummed game records, browsable step by step."""
