"""Aurra's domain core: the shared Lambda layer behind every handler."""
