"""The win-chance curves of an analysis drawn as an image (``blackwhite analyse --plot``).

matplotlib is an optional extra (``blackwhite[analysis]``), so it is imported here only:
the analysis itself, the server and the replay page's chart never load it.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # files only: no window, and no display needed on a server
import matplotlib.pyplot as plt  # noqa: E402 - after the backend is chosen

from .core import Analysis, curve  # noqa: E402


def plot(analysis: Analysis, path: str) -> None:
    """Draw each seat's win-chance curve, marks shown, to ``path`` (.png or .svg)."""
    if not (path.endswith(".png") or path.endswith(".svg")):
        raise ValueError(f"--plot writes a .png or .svg file, got {path!r}")
    fig, ax = plt.subplots(figsize=(10, 4.5))
    styles = {"inaccuracy": ("#e6b800", "o"), "mistake": ("#e67300", "s"), "blunder": ("#cc0000", "X")}
    seats = sorted({s.seat for s in analysis.summaries})
    for seat in seats:
        pts = curve(analysis, seat)
        if not pts:
            continue
        (line,) = ax.plot([p[0] for p in pts], [100 * p[1] for p in pts], label=f"P{seat + 1} {analysis.seats[seat]}")
        for r in analysis.decisions:
            if r.seat == seat and r.mark is not None:
                colour, marker = styles[r.mark]
                ax.scatter([r.event], [100 * r.win], color=colour, marker=marker, s=60, zorder=3,
                           edgecolors=line.get_color())
    for name, (colour, marker) in styles.items():
        ax.scatter([], [], color=colour, marker=marker, label=name)
    ax.set_ylim(-2, 102)
    ax.set_xlabel("event")
    ax.set_ylabel("estimated win chance (%)")
    ax.set_title(f"{analysis.game}: win chance from each seat's own information")
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
