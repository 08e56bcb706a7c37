"""The `heights` command-line interface."""
