"""The server's runtime, one per worker: rooms with their connections and
locks, the one change path (:mod:`.service`), timers that fire commands into
it (:mod:`.timers`), bot turns, telling the clients (:mod:`.hub`), and the
store of record (:mod:`.store`, :mod:`.db`).

Ring: middle; imports the core, never the edge (tests/test_layering.py).
"""
