"""Writes to /tmp until something stops it; prints how far it got."""

import json

written = 0
error = ""
chunk = b"\0" * 2**20
try:
    with open("/tmp/big", "wb") as f:
        for _ in range(1024):
            f.write(chunk)
            f.flush()
            written += len(chunk)
except OSError as exc:
    error = exc.__class__.__name__ + ": " + str(exc.errno)
print(json.dumps({"written": written, "error": error}), flush=True)
