"""Benchmarks behind ``familiars bench``; each module exposes a typer ``command``."""
