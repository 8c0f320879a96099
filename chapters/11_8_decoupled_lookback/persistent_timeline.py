#!/usr/bin/env python3
"""Draws docs/images/persistent_timeline.png (the figure of docs/pages/11_8_persistent.md): the roles of the warps of one block of the persistent pipelined scan
(persistent_scan.cuh, the large shape: with the look-back warp) over time, with the GPU's number of
stages (kStages, read from persistent_scan.cuh). A schematic (not measured): each bar is what a role
does for one tile; the arrows of the kernel are its barriers (full, reduced, empty, prefixed, the scan
warps' own). Also persistent_timeline.narrow.png, the same for a phone's column (the page serves it
there: docs/make_pages.py), its text 10 px at 400 px.
Usage: python3 persistent_timeline.py [OUT.png]   (default: docs/images/persistent_timeline.png)"""
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

HERE = os.path.dirname(os.path.abspath(__file__))


def gpu_stages():
    """kStages of the GPU's PersistentTuning (the #else branch: the cpu backend's comes first)."""
    with open(os.path.join(HERE, "persistent_scan.cuh"), encoding="utf-8") as f:
        text = f.read()
    gpu = text[text.index("struct PersistentTuning"):]
    gpu = gpu[gpu.index("#else"):]
    return int(re.search(r"static constexpr int kStages = (\d+);", gpu).group(1))


STAGES = gpu_stages()
TILES = 2 * STAGES + 1
colors = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f"]


def draw(narrow):
    sub = 0.3  # the producer's sub-rows, one per stage: copies overlap in time
    rows = {"producer warp\n(ticket + bulk copy)": 2.55 + sub * (STAGES - 1) / 2, "reducer warp\n(aggregate out)": 2,
            "look-back warp\n(prefix out)": 1, "scan warps\n(block scan, store)": 0}
    fig, ax = plt.subplots(figsize=(4.4, 4.8) if narrow else (10, 4.0))
    copy, reduce_, scan, look = 3.0, 1.0, 1.6, 1.2
    land = []       # when tile k has landed in its stage
    scan_end = []   # when the scan warps are done with tile k (stage k % STAGES is free again soon after)
    t_prod = t_red = t_scan = t_look = 0.0
    for k in range(TILES):
        c = colors[k % len(colors)]
        free = scan_end[k - STAGES] if k >= STAGES else 0.0  # the stage is handed back (empty)
        start = max(t_prod, free)
        y = 2.55 + sub * (STAGES - 1 - k % STAGES)
        ax.broken_barh([(start, 0.3)], (y - 0.13, 0.26), color="black")                  # ticket
        ax.broken_barh([(start + 0.3, copy)], (y - 0.13, 0.26), color=c, alpha=0.6)      # bytes in flight
        ax.text(start + 0.3 + copy / 2, y, f"{k}>{k % STAGES}" if narrow else f"tile {k} -> stage {k % STAGES}",
                ha="center", va="center", fontsize=8)
        t_prod = start + 0.8  # the producer issues and moves on: copies overlap
        land.append(start + 0.3 + copy)
        r0 = max(t_red, land[k])
        ax.broken_barh([(r0, reduce_)], (2 - 0.35 - sub / 2, 0.7), color=c)
        ax.text(r0 + reduce_ / 2, 2 - sub / 2, f"{k}" if narrow else f"A{k}", ha="center", va="center", fontsize=8, color="white")
        t_red = r0 + reduce_
        l0 = max(t_look, r0 + reduce_)  # the look-back warp: as soon as the aggregate is out
        ax.broken_barh([(l0, look)], (1 - 0.35, 0.7), color=c, hatch="//", alpha=0.8)
        ax.text(l0 + look / 2, 1, f"{k}" if narrow else f"P{k}", ha="center", va="center", fontsize=8)
        t_look = l0 + look
        s0 = max(t_scan, land[k])
        ax.broken_barh([(s0, scan / 2)], (0 - 0.35, 0.7), color=c)
        a0 = max(s0 + scan / 2, t_look)  # add the prefix and store, once it is there
        ax.broken_barh([(a0, scan / 2)], (0 - 0.35, 0.7), color=c)
        t_scan = a0 + scan / 2
        scan_end.append(max(s0 + 0.3, r0 + reduce_))  # read into registers, and read by the look-back warp: stage free
    ticks = dict(rows)
    ticks[list(rows)[1]] = 2 - sub / 2
    ax.set_yticks(list(ticks.values()))
    ax.set_yticklabels(list(ticks.keys()), fontsize=8)
    ax.set_xlabel("time (schematic)", fontsize=9)
    ax.set_xticks([])
    title = (f"One block of the persistent pipelined scan ({STAGES} stages, schematic): bulk copies run ahead; "
             "the reducer publishes each aggregate (A) as soon as its tile lands; the look-back warp then finds "
             "the prefix (P) while the scan warps work on earlier tiles")
    if narrow:
        title += ". Top: tile > the stage it is copied into; below: the tile's number"
    import textwrap
    ax.set_title("\n".join(textwrap.wrap(title, 46 if narrow else 110)), fontsize=9)
    fig.tight_layout()
    return fig


default = os.path.join(HERE, "..", "..", "docs", "images", "persistent_timeline.png")
out = sys.argv[1] if len(sys.argv) > 1 else default
draw(False).savefig(out, dpi=110)
draw(True).savefig(out[:-len(".png")] + ".narrow.png", dpi=110)
