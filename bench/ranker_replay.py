"""The chat replay's pools for the learned stage (``bench/ranker.py --replay``).

In live use every question goes through the proxy and is stored with the assistant's reply,
so a later question meets the earlier exchange among its candidates (``mnemo.eval.replay``).
A stored reply that answered the same question is as good as the evidence, and one that did
not ("I'm not sure, could you remind me?") is noise; neither ever appears in a benchmark's
pools. Per mode (``answer``: the dataset's answer is the reply; ``non_answer``: the scripted
non-answer), LoCoMo dev is copied, every answerable question is replayed once through the
proxy's path, and then asked again as the replay measures it
(:meth:`mnemo.memory.exchange.Exchange.search`'s query, scope and left-out texts), with
``ranker_depth=0``: the pool the learned stage reads. Labels: the question's evidence turns,
and in ``answer`` mode also the stored replies to it (its ``answers``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mnemo import Memory
from mnemo.eval.locomo import asks_locomo, load_locomo
from mnemo.eval.replay import Mode, copy_sqlite, replay_round
from mnemo.memory.exchange import Exchange
from mnemo.retrieval import pool_features
from ranker_pool import Pool
from relevance import Split

#: The replay modes whose pools are collected.
MODES: tuple[Mode, ...] = ("answer", "non_answer")


def collect_replay(split: Split, path: str, work: Path, embedder: str, depth: int) -> list[Pool]:
    """Every answerable LoCoMo question's pool after one replay round, per mode of
    :data:`MODES` (pool ids ``<mode>:<question id>``, split ``replay-<mode>``)."""
    data = load_locomo(path)
    mine = {a.id: a for a in split.asks if a.answerable}
    asks = [a for a in asks_locomo(data) if a.id in mine]
    pools = []
    for mode in MODES:
        db = work / f"replay-{mode}.db"
        db.unlink(missing_ok=True)
        copy_sqlite(split.db, str(db))
        with Memory(str(db), embedder=embedder, ranker_depth=0, pool_factor=1) as mem:
            replay_round(mem, asks, mode, 1)
            model = mem.pipeline.calibration
            for ask in asks:
                bench = mine[ask.id]
                msgs = [{"role": "user", "content": ask.question}]
                ex = Exchange(mem, msgs, ask.user_id, "ask-1", now=ask.now)
                hits = mem.search(
                    ex.query, ex.user_id, limit=depth, now=ex.now, exclude=ex.request_texts,
                    current_session=ex.session_id, explain=True,
                )  # fmt: skip
                replies = set(ask.replies)
                keys = [
                    f"reply:{h.id}" if h.id in replies
                    else bench.key(h.kind, h.metadata, h.session_id)
                    for h in hits
                ]  # fmt: skip
                answers = {k for k in keys if k is not None and k.startswith("reply:")}
                y = [k in bench.evidence or k in answers for k in keys]
                pools.append(
                    Pool(
                        f"{mode}:{ask.id}", f"replay-{mode}", bench.group,
                        frozenset({f"locomo:{bench.user}"}), True,
                        pool_features.matrix(hits, ask.question, model, depth),
                        np.asarray(y, dtype=np.float64), keys, set(bench.evidence),
                        ask.question, hits, answers,
                    )
                )  # fmt: skip
    return pools


__all__ = ["MODES", "collect_replay"]
