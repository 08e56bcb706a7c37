"""Starts a setsid'd, double-forked child that tries to outlive the bot."""

import os
import time

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(3600)  # orphaned, in its own session; its argv carries the test's marker
    os._exit(0)
print("spawned", flush=True)
time.sleep(3600)
