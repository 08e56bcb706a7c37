"""Burns CPU forever after saying it is ready."""

print("ready", flush=True)
while True:
    pass
