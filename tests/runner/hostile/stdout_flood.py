"""Floods stdout with short lines."""

import sys

line = "x" * 1000 + "\n"
while True:
    sys.stdout.write(line)
