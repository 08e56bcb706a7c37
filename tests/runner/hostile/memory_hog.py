"""Allocates without end (bytes objects, so every page is really touched)."""

print("allocating", flush=True)
hoard: list[bytes] = []
while True:
    hoard.append(b"x" * (8 * 2**20))
