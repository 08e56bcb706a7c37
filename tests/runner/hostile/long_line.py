"""Prints one 5 MiB line."""

import sys

sys.stdout.write("y" * (5 * 2**20) + "\n")
sys.stdout.flush()
