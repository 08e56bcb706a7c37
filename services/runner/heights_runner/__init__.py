"""The match runner: bots in sandboxes, matches played through the engine, Celery workers."""

import os

# Bots start with fork + exec (the sandbox's limits and cgroup are set between the two).
# With gRPC core's fork support on, a fork from a process whose channel is in use runs
# gRPC's fork handlers in the child, which restart a poller on a descriptor the child
# then closes before exec: the bot dies of SIGABRT before it runs ("Epoll1Poller ...
# epoll_wait error: Bad file descriptor"; about 1 start in 300 with a busy channel). The
# runner never uses a channel across a fork (each worker process makes its own), so the
# support is turned off. gRPC reads this when it is first imported, so the CLI and the
# tests import this package first.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "0")
