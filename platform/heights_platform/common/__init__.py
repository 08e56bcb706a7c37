"""Conventions shared by every app: the error shape, pagination, health endpoints."""
