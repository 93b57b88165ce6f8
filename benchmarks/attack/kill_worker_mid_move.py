"""Attack: two workers; a game against a bot on the worker that runs it; a bid
sent and that worker SIGKILLed at once; then the same seat token on the other
worker. Prints whether the seat comes back, the bid is there at most once,
and the game goes on.

    liars-dice serve --port 8310 --workers 2 --db postgresql://... --redis redis://.../14
    python benchmarks/attack/kill_worker_mid_move.py 8310 8311 WORKER_PID_OF_8310
"""
from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time

import httpx
import websockets


async def recv_until(ws, pred, timeout=20.0):  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while True:
        m = json.loads(await asyncio.wait_for(ws.recv(), max(0.1, end - time.monotonic())))
        if pred(m):
            return m


async def main(p1: int, p2: int, pid: int) -> None:
    r = httpx.post(f"http://127.0.0.1:{p1}/api/tables", json={"nickname": "kim", "seats": 2})
    t = r.json()
    code, token = t["code"], t["token"]
    async with websockets.connect(f"ws://127.0.0.1:{p1}/ws/tables/{code}") as ws:
        await ws.send(json.dumps({"type": "hello", "token": token, "id": "h"}))
        await recv_until(ws, lambda m: m.get("type") == "welcome")
        await ws.send(json.dumps({"type": "add_bot", "bot": "random", "id": "b"}))
        await recv_until(ws, lambda m: m.get("id") == "b")
        await ws.send(json.dumps({"type": "start", "id": "s"}))
        await recv_until(ws, lambda m: m.get("type") == "state" and m["view"].get("to_move") == "kim", 60)
        await ws.send(json.dumps({"type": "bid", "quantity": 1, "face": 2, "id": "bid1"}))
        os.kill(pid, signal.SIGKILL)
        t0 = time.monotonic()
    for attempt in range(60):
        try:
            async with websockets.connect(f"ws://127.0.0.1:{p2}/ws/tables/{code}") as ws:
                await ws.send(json.dumps({"type": "hello", "token": token, "id": "h2"}))
                w = await recv_until(ws, lambda m: m.get("type") in ("welcome", "error"))
                if w["type"] == "error":
                    raise RuntimeError(w["code"])
                st = await recv_until(ws, lambda m: m.get("type") == "state")
                print(f"back on the other worker after {time.monotonic() - t0:.1f} s (attempt {attempt + 1}): seat {w['seat']}")
                print("bids when back:", st["view"]["bids"], "to move:", st["view"]["to_move"])
                if st["view"]["to_move"] != "kim":  # the bot's move first
                    st = await recv_until(ws, lambda m: m.get("type") == "state" and m["view"].get("to_move") == "kim", 60)
                for k in range(10):  # server/busy means try again in a few seconds
                    await ws.send(json.dumps({"type": "bid", "quantity": 9, "face": 6, "id": f"bid2-{k}"}))
                    ack = await recv_until(ws, lambda m: m.get("id") == f"bid2-{k}")
                    print(f"  try {k + 1} at {time.monotonic() - t0:.1f} s: {ack['type']} {ack.get('code', '')}")
                    if ack.get("code") != "server/busy":
                        break
                    await asyncio.sleep(2)
                print(f"the game went on: {json.dumps(ack)[:200]} for a new bid: (after {time.monotonic() - t0:.1f} s)")
                return
        except Exception as e:  # noqa: BLE001
            await asyncio.sleep(0.5)
            last = e
    print("never came back:", last)


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])))
