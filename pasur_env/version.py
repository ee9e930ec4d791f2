"""The version of pasur_env, written once: ``pyproject.toml`` reads it from here.

A module of its own (one assignment, no imports) so the build reads it without
importing the package, and the kernel cache (:mod:`pasur_env.core.cache`) can name
its folder after it before anything else is imported.
"""

__version__ = "0.2.0"
