"""Bundled lesson files (data, never code) and their loader and validator."""
