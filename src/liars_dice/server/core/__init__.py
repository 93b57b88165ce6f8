"""The server's core: what a table's owner runs, with no asyncio and no sockets.

The table value and its events (:mod:`.tables`), the commands that become
events (:mod:`.commands`), the fair dice (:mod:`.fairness`), the views made
from a table (:mod:`.views`), the client messages (:mod:`.messages`), the
text rules (:mod:`.text`), the errors and the settings.

Ring: innermost; imports the engine, records and bots, and nothing of the
runtime or the edge (tests/test_layering.py).
"""
