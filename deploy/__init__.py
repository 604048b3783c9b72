"""Running the app for a class: several replicas behind nginx (replicas.py; docs/deploying.md)."""
