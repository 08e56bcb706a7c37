"""Tournaments: round robin, Swiss and single elimination, with duplicate matches."""
