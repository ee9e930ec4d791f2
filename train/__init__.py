"""Training scripts and helpers for pasur_env agents (filled in by a later issue)."""
