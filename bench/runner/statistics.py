"""From samples to figures: each metric of each experiment becomes one
figure with the median, min and max of its samples per implementation (or
why it has none) and the ratios ours/floor and ours/LTTng. The table, the
goals and the JSON's "figures" are all made from these."""

import statistics

from .experiments import NA
from .programs import IMPLS


def summarize(values):
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values),
            "samples": values}


def ratio(a, b):
    if not a or not b or "median" not in a or "median" not in b or not b["median"]:
        return None
    return a["median"] / b["median"]


def build_figures(exps):
    figures = []
    for exp in exps:
        for m in exp.metrics:
            f = {"id": exp.id + "." + m.key, "experiment": exp.id, "group": exp.group, "workload": exp.label,
                 "metric": m.label, "unit": m.unit, "better": m.better, "show": m.show, "values": {}}
            for impl in IMPLS:
                st = exp.na.get(impl) or exp.status[impl]
                vals = [r[m.key] * m.scale for r in exp.samples[impl] if isinstance(r.get(m.key), (int, float))]
                if vals:
                    f["values"][impl] = summarize(vals)
                elif isinstance(st, NA):
                    f["values"][impl] = {"text": "n/a", "reason": st.reason}
                elif st:
                    f["values"][impl] = {"text": "failed", "reason": st}
                elif getattr(exp, "excluded", 0):
                    f["values"][impl] = {"text": "n/a", "reason": "every run lost events (left out)"}
                else:
                    f["values"][impl] = {"text": "n/a", "reason": "no sample"}
            f["ratio_ours_floor"] = ratio(f["values"]["ours"], f["values"]["floor"])
            f["ratio_ours_lttng"] = ratio(f["values"]["ours"], f["values"]["lttng"])
            figures.append(f)
    return figures


def fig(figures, fid):
    for f in figures:
        if f["id"] == fid:
            return f
    return None


def med(f, impl):
    if not f:
        return None
    v = f["values"].get(impl)
    return v.get("median") if v else None
