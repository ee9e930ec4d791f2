"""Baseline agents for pasur_env (filled in by a later issue)."""
