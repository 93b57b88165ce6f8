"""Attack: one address opens websockets on both workers at once (a burst, then
slowly); counts how many are welcomed against sockets_per_address (64).

    python benchmarks/attack/sockets_two_workers.py 8310 8311 127.0.0.9 50
"""
from __future__ import annotations

import asyncio
import json
import sys

import httpx
import websockets


async def main(p1: int, p2: int, addr: str, per: int) -> None:
    code = httpx.post(f"http://127.0.0.1:{p1}/api/tables", json={"nickname": "own", "seats": 2}).json()["code"]
    held = []
    welcomed = refused = 0
    for slow in (False, True):
        for i in range(per):
            for port in (p1, p2):
                try:
                    ws = await websockets.connect(f"ws://127.0.0.1:{port}/ws/tables/{code}", host=None,
                                                  local_addr=(addr, 0), open_timeout=10)
                    await ws.send(json.dumps({"type": "hello"}))
                    m = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    if m.get("type") == "welcome":
                        welcomed += 1
                        held.append(ws)
                    else:
                        refused += 1
                        await ws.close()
                except Exception:  # noqa: BLE001
                    refused += 1
            if slow:
                await asyncio.sleep(0.1)
        print(f"after {'slow' if slow else 'burst'} round: welcomed {welcomed}, refused {refused}")
    for ws in held:
        await ws.close()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])))
