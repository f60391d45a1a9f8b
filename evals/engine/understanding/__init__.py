"""Deterministic readers of conversation text for the offline simulators (no model, no Django)."""
