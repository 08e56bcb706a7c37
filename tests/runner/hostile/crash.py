"""Dies before it says anything."""

raise RuntimeError("hostile bot crashing at start")
