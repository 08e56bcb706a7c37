"""Matches: ladder, tournament, challenge and qualification games, and their results."""
