"""Offline and native Lean toolchains, and the proof-checking build."""
