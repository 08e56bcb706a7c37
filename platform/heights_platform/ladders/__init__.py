"""Ladders: a ruleset with its participants, Elo and Plackett-Luce ratings, matchmaking."""
