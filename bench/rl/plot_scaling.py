"""Draws docs/rl_scaling.png from bench/rl/scaling.sh's CSV: environment steps per second of
vectorised PPO against the number of agents, one line per thread count, with the ideal line
(linear in the agents from the 1-agent rate).  /usr/bin/python3 (python3-matplotlib) or any
Python with matplotlib:  python3 bench/rl/plot_scaling.py scaling.csv docs/rl_scaling.png
Optional third and fourth arguments replace the title and the x axis's label (bench/rl/
impala_scaling.sh's CSV, whose "agents" are actor processes); an optional fifth names a line by
its "threads" column, with {} for the value (bench/rl/a3c_hub_scaling.sh: "push every {} rollout(s)").
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    fig, ax = plt.subplots(figsize=(6, 4))
    series = sys.argv[5] if len(sys.argv) > 5 else "{} thread(s)"
    for threads in sorted({int(r["threads"]) for r in rows}):
        pts = sorted((int(r["agents"]), float(r["steps_per_second"])) for r in rows if int(r["threads"]) == threads)
        xs, ys = zip(*pts)
        line, = ax.plot(xs, ys, "o-", label=series.format(threads))
        ax.plot(xs, [ys[0] * x / xs[0] for x in xs], "--", color=line.get_color(), alpha=0.5,
                label=f"ideal ({series.format(threads)})")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(sys.argv[4] if len(sys.argv) > 4 else "agents (environment copies)")
    ax.set_ylabel("environment steps per second")
    title = sys.argv[3] if len(sys.argv) > 3 else "Vectorised PPO on CartPole-v1 (strata_ppo), 2-core machine under load"
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=100)


main()
