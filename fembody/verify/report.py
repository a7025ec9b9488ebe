"""The verification report: one self-contained HTML (or Markdown) file with the pass/fail table,
the source of every reference and the convergence plots embedded as base64 PNG images, to
attach to a design review."""
from __future__ import annotations

import base64
import datetime
import html
import io
import pathlib
import platform

from .registry import Outcome


def _png(plot: dict) -> str:
    """A plot dict (``x``, ``series``, optional per-series ``xs``, ``loglog``, labels) as a
    base64 PNG."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.2, 3.4), layout="constrained")
    xs = plot.get("xs", {})
    for label, y in plot["series"].items():
        x = xs.get(label, plot["x"])
        ax.plot(x, y, "o-" if plot.get("loglog") else "-", label=label, ms=4)
    if plot.get("loglog"):
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set(xlabel=plot.get("xlabel", ""), ylabel=plot.get("ylabel", ""),
           title=plot.get("title", ""))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0),
              borderaxespad=0.0)          # beside the curves, never over them
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def _header(outcomes: list[Outcome]) -> tuple[str, str]:
    from .. import version as fembody_version
    version = fembody_version.__version__
    n_ok = sum(o.passed for o in outcomes)
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    machine = f"{platform.node()}, {platform.machine()}, Python {platform.python_version()}"
    verdict = ("PASSED" if n_ok == len(outcomes) else "FAILED") + \
        f": {n_ok} of {len(outcomes)} cases within their tolerances"
    return verdict, f"fembody {version}, {when}, {machine}"


def html_report(outcomes: list[Outcome]) -> str:
    verdict, meta = _header(outcomes)
    e = html.escape
    rows, figs = [], []
    for o in outcomes:
        if o.error:
            rows.append(f"<tr class='bad'><td>{e(o.case.name)}</td><td colspan=5>raised "
                        f"{e(o.error)}</td><td>FAIL</td><td>{e(o.case.source)}</td></tr>")
        for r in o.rows:
            kind = "relative" if r.relative else "absolute"
            rows.append(f"<tr class='{'ok' if r.passed else 'bad'}'><td>{e(o.case.name)}</td>"
                        f"<td>{e(r.quantity)}</td><td>{r.value:.8g}</td><td>{r.reference:.8g}"
                        f"</td><td>{r.error:.3g}</td><td>{r.tol:.2g} ({kind})</td>"
                        f"<td>{'pass' if r.passed else 'FAIL'}</td><td>{e(o.case.source)}</td>"
                        "</tr>")
        for p in o.plots:
            figs.append(f"<figure><img alt='{e(p.get('title', o.case.name))}' "
                        f"src='data:image/png;base64,{_png(p)}'><figcaption>{e(o.case.name)}: "
                        f"{e(o.case.description)}</figcaption></figure>")
    desc = "".join(f"<li><b>{e(o.case.name)}</b> ({o.wall:.1f} s): {e(o.case.description)}</li>"
                   for o in outcomes)
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>fembody verification report</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:75em}}
table{{border-collapse:collapse;font-size:0.85em}}td,th{{border:1px solid #bbb;padding:3px 6px}}
tr.ok td:nth-child(7){{color:#070}}tr.bad td{{background:#fdd}}
figure{{display:inline-block;margin:0.5em;width:30em;vertical-align:top}}
figcaption{{font-size:0.8em}}</style></head><body>
<h1>fembody verification report</h1>
<p><b>{e(verdict)}</b><br>{e(meta)}</p>
<table><tr><th>case</th><th>quantity</th><th>value</th><th>reference</th><th>error</th>
<th>tolerance</th><th>result</th><th>source of the reference</th></tr>
{''.join(rows)}</table>
<h2>Cases</h2><ul>{desc}</ul>
<h2>Convergence and histories</h2>
{''.join(figs)}
</body></html>
"""


def markdown_report(outcomes: list[Outcome]) -> str:
    verdict, meta = _header(outcomes)
    out = ["# fembody verification report", "", f"**{verdict}**  ", meta, "",
           "| case | quantity | value | reference | error | tolerance | result | source |",
           "|---|---|---|---|---|---|---|---|"]
    figs = []
    for o in outcomes:
        if o.error:
            out.append(f"| {o.case.name} | raised {o.error} | | | | | FAIL | {o.case.source} |")
        for r in o.rows:
            out.append(f"| {o.case.name} | {r.quantity} | {r.value:.8g} | {r.reference:.8g} | "
                       f"{r.error:.3g} | {r.tol:.2g} ({'rel' if r.relative else 'abs'}) | "
                       f"{'pass' if r.passed else '**FAIL**'} | {o.case.source} |")
        for p in o.plots:
            figs.append(f"![{p.get('title', o.case.name)}](data:image/png;base64,{_png(p)})")
    return "\n".join(out + ["", "## Plots", ""] + figs) + "\n"


def write(outcomes: list[Outcome], path) -> pathlib.Path:
    """Write the report to ``path``: Markdown for ``.md``, HTML otherwise."""
    path = pathlib.Path(path)
    text = markdown_report(outcomes) if path.suffix.lower() in (".md", ".markdown") \
        else html_report(outcomes)
    path.write_text(text, encoding="utf-8")
    return path
