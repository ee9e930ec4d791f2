"""The web table (``pasur serve``): play Pasur in the browser against the agents, and
replay recorded games. Needs the ``web`` extra (FastAPI, uvicorn)."""
