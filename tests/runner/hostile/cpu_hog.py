"""Spins on every core it can get: three processes in a busy loop."""

import os

print("spinning", flush=True)
for _ in range(2):
    if os.fork() == 0:
        break
while True:
    pass
