"""Never answers."""

import time

print("ready", flush=True)
time.sleep(3600)
