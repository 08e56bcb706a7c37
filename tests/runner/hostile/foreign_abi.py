"""Makes one getpid through another ABI (x86_64 machine code): i386's `int 0x80` or x32.

Reads which from stdin ("i386" or "x32") after saying "ready", then prints what the call
returned; under the filter it never gets to print.
"""

import ctypes
import mmap
import sys

CODE = {
    "i386": bytes.fromhex("b814000000cd80c3"),  # mov eax, 20 (getpid); int 0x80; ret
    "x32": bytes.fromhex("b8270000400f05c3"),  # mov eax, 0x40000000|39; syscall; ret
}
print("ready", flush=True)
abi = sys.stdin.readline().strip()
page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(CODE[abi])
address = ctypes.addressof(ctypes.c_char.from_buffer(page))
call = ctypes.CFUNCTYPE(ctypes.c_int)(address)
print(f"survived {call()}", flush=True)
