"""Built-in bots that play through observations."""
