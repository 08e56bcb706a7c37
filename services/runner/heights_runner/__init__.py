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
# gRPC's client without its EventEngine: the thread that waits on a call's completion
# queue then polls the channel's socket itself, where with it one of gRPC's I/O threads
# reads the answer and wakes the waiting thread. With the runner's stream driven in the
# match's own thread (caller_stream.py) that is one thread hand-off less a message:
# runner CPU a relayed decision 256, 224 -> 177, 181 us, voluntary context switches
# 5.6, 5.1 -> 1.8, 1.9 (docs/runner.md, "The runner's share, round 3"). Client channels
# only: a server's listener is another experiment. An operator's own value is kept.
os.environ.setdefault("GRPC_EXPERIMENTS", "-event_engine_client")
