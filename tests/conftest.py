"""Settings for every test process, made before any test module imports grpc."""

# Tests start bots from processes with busy gRPC channels, as runner workers do: the
# runner's package turns gRPC's fork handlers off (why: heights_runner/__init__.py).
import heights_runner  # noqa: F401
