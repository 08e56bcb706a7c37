"""Tries to write everywhere but /tmp, then in /tmp; prints the errno of each refusal."""

import errno
import json

PATHS = (
    "/bot/x",
    "/usr/x",
    "/x",
    "/dev/x",
    "/dev/shm/x",
    "/proc/sys/kernel/hostname",
    "/proc/sys/vm/swappiness",  # a global knob: writable would mean host-wide damage
    "/tmp/x",
)
results: dict[str, str] = {}
for path in PATHS:
    try:
        # Writes back what is there (a sysctl keeps its value even if the write got through).
        try:
            with open(path) as f:
                content = f.read()
        except OSError:
            content = "pwned\n"
        with open(path, "w") as f:
            f.write(content)
        results[path] = "written"
    except OSError as exc:
        results[path] = errno.errorcode.get(exc.errno or 0, str(exc.errno))
print(json.dumps(results), flush=True)
