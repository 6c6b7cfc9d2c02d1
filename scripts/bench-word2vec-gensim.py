#!/usr/bin/env python3
"""gensim's side of the word2vec comparison (docs/examples.md): trains skip-gram with negative
sampling on the corpus `strata_word2vec --write-corpus FILE` wrote, with strata_word2vec's
defaults, and prints words/s, the neighbours of the probe words and the pair MRR figure.
Runs in a venv outside the clone: python3 -m venv ~/.cache/strata-text-venv &&
~/.cache/strata-text-venv/bin/pip install gensim==4.4.0
  bench-word2vec-gensim.py CORPUS [--threads N] [--epochs N]"""
import argparse
import time

from gensim.models import Word2Vec

PROBES = "god,jerusalem,king,gold,sheep,water,father,sword".split(",")
PAIRS = [("gold", "silver"), ("sheep", "goats"), ("bread", "wine"), ("father", "mother"),
         ("brother", "sister"), ("sons", "daughters"), ("moses", "aaron"), ("david", "solomon"),
         ("heaven", "earth"), ("sword", "spear"), ("jerusalem", "zion"), ("egypt", "pharaoh"),
         ("day", "night"), ("men", "women"), ("oxen", "donkeys"), ("priests", "levites")]


def pair_mrr(wv):
    """Mean reciprocal rank of each word of a pair among the other's neighbours (strata_word2vec's figure)."""
    total, count = 0.0, 0
    for a, b in PAIRS:
        if a not in wv or b not in wv:
            continue
        for x, y in ((a, b), (b, a)):
            near = [w for w, _ in wv.most_similar(x, topn=len(wv))]
            total += 1.0 / (near.index(y) + 1)
            count += 1
    return total / count if count else 0.0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("corpus")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--epochs", type=int, default=5)
    a = p.parse_args()
    sentences = [line.split() for line in open(a.corpus, encoding="utf-8")]
    sentences = [s for s in sentences if s]
    model = Word2Vec(sg=1, hs=0, negative=5, vector_size=100, window=5, min_count=5, sample=1e-3, alpha=0.025,
                     min_alpha=0.0001, workers=a.threads, seed=1)
    model.build_vocab(sentences)
    start, cpu_start = time.perf_counter(), time.process_time()
    _, raw = model.train(sentences, total_examples=len(sentences), epochs=a.epochs)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    print(f"{raw} words in {seconds:.1f} s: {raw / seconds:.0f} words/s, {cpu:.1f} CPU s, "
          f"{raw / cpu:.0f} words per CPU second ({a.threads} threads), vocabulary {len(model.wv)}")
    for w in PROBES:
        if w in model.wv:
            print(f"{w:<10}", " ".join(n for n, _ in model.wv.most_similar(w, topn=8)))
    print(f"pair MRR {pair_mrr(model.wv):.4f}")


if __name__ == "__main__":
    main()
