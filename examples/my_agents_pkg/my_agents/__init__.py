"""Example agents installed as a package; pasur_env finds them by their entry points."""
