"""The server's edge: what faces the network. The FastAPI app and its routes
(:mod:`.app`), the one gate that cleans client text and counts rates
(:mod:`.guard`, :mod:`.limits`), body and header checks (:mod:`.headers`),
the HTTP deadlines (:mod:`.http_deadline`) and the response schemas.

Ring: outermost; imports the runtime and the core (tests/test_layering.py).
"""
