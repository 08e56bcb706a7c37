"""Forks until refused (every child forks too), reports, then keeps everything alive."""

import os
import time

bot = os.getpid()
refused = 0
for _ in range(100):
    try:
        if os.fork() == 0:
            continue  # the child keeps forking as well
    except OSError:
        refused += 1
        time.sleep(0.01)
if os.getpid() == bot:
    print(f"refused {refused}", flush=True)
time.sleep(3600)
