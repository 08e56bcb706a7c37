"""The `heights` command-line interface."""

# First, before anything imports grpc: the runner turns gRPC's fork support off (why:
# heights_runner/__init__.py), and every `heights` process may start bots or servers.
import heights_runner  # noqa: F401
