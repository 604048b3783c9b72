"""Helpers for the browser tests, the screenshot gallery and the benchmark (not used by the app)."""
