"""Floods stderr and never writes another line to stdout."""

import sys

print("ready", flush=True)
block = "e" * 65536
while True:
    sys.stderr.write(block)
