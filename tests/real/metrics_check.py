"""Checks a scrape of kedge's /metrics against the exposition format, the
metric table of docs/metrics.md and the PromQL of the Grafana dashboard.

    metrics_check.py SCRAPE DOCS DASHBOARD

- The scrape, read by prometheus_client's text parser: every family has a
  # TYPE (none "unknown"); a counter's samples are NAME_total, a gauge's
  NAME, a histogram's NAME_bucket (with le, +Inf last and equal to
  _count), NAME_sum and NAME_count; no family is a gauge or counter with
  a "quantile" label; every label is one of a bounded set (no record's
  offset: a label whose values grow without bound).
- docs/metrics.md: its table "Every metric" names every family of the
  scrape with its type, and each name it has that the scrape has not is
  in its table "Only in some states".
- The dashboard: every "expr" of its panels and every query of its
  variables, parsed by promql_parser after Grafana's own variables are
  replaced, names only series the scrape has, or that a family of the
  "Only in some states" table would have.

Prints one line per check that fails, and exits 1 if any did.
"""
import json
import re
import sys

import promql_parser
from prometheus_client.parser import text_string_to_metric_families

# Every label kedge may put on a series: each takes values from a set
# bounded by the configuration (tables, topics, partitions) or by kedge.
BOUNDED_LABELS = {"table", "topic", "partition", "reason", "result",
                  "version", "le"}

failures = []


def fail(what):
    if what not in failures:
        failures.append(what)


def families_of(text):
    """{name: (type, [samples])} of the scrape."""
    out = {}
    for f in text_string_to_metric_families(text):
        if f.type == "unknown":
            fail("%s: samples without a # TYPE" % f.name)
        out[f.name] = (f.type, f.samples)
    return out


def series_names(name, kind):
    """The names a family's samples may have."""
    if kind == "counter":
        return {name + "_total"}
    if kind == "histogram":
        return {name + "_bucket", name + "_sum", name + "_count"}
    if kind == "summary":
        return {name, name + "_sum", name + "_count"}
    return {name}


def check_format(fams):
    for name, (kind, samples) in fams.items():
        allowed = series_names(name, kind)
        for s in samples:
            if s.name not in allowed:
                fail("%s (%s): a sample named %s" % (name, kind, s.name))
            extra = set(s.labels) - BOUNDED_LABELS
            if extra:
                fail("%s: labels %s may grow without bound" %
                     (s.name, sorted(extra)))
            if "quantile" in s.labels and kind != "summary":
                fail("%s: a quantile label on a %s" % (s.name, kind))
            if "le" in s.labels and not s.name.endswith("_bucket"):
                fail("%s: an le label outside a histogram" % s.name)
        if kind == "histogram":
            check_histogram(name, samples)


def check_histogram(name, samples):
    by_series = {}
    for s in samples:
        key = tuple(sorted((k, v) for k, v in s.labels.items() if k != "le"))
        by_series.setdefault(key, []).append(s)
    for key, ss in by_series.items():
        buckets = [s for s in ss if s.name == name + "_bucket"]
        counts = [s.value for s in ss if s.name == name + "_count"]
        if not buckets or buckets[-1].labels.get("le") != "+Inf":
            fail("%s%s: no +Inf bucket last" % (name, dict(key)))
            continue
        values = [b.value for b in buckets]
        if values != sorted(values):
            fail("%s%s: buckets not cumulative" % (name, dict(key)))
        if counts != [buckets[-1].value]:
            fail("%s%s: _count %s is not the +Inf bucket %s" %
                 (name, dict(key), counts, buckets[-1].value))


def docs_tables(path):
    """{name: type} of "Every metric", and the names of "Only in some
    states", from the Markdown."""
    text = open(path).read()
    every, only, section = {}, set(), None
    for line in text.splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or not re.match(r"^`kedge_", cells[0]):
            continue
        names = re.findall(r"`(kedge_[a-z_]+)`", cells[0])
        if section == "Every metric":
            for n in names:
                every[n] = cells[1]
        elif section == "Only in some states":
            only.update(names)
    if not every:
        fail("%s: no table under \"## Every metric\"" % path)
    if not only:
        fail("%s: no table under \"## Only in some states\"" % path)
    return every, only


def docs_name(name, kind):
    """A family's name as the docs (and the # TYPE lines) write it."""
    return name + "_total" if kind == "counter" else name


def check_docs(fams, every, only):
    exported = {}
    for name, (kind, _) in fams.items():
        exported[docs_name(name, kind)] = kind
    for n, kind in exported.items():
        if n not in every:
            fail("%s is exported but not in docs/metrics.md" % n)
        elif every[n] != kind:
            fail("%s: docs/metrics.md says %s, the scrape %s" %
                 (n, every[n], kind))
    for n in every:
        if n not in exported and n not in only:
            fail("%s: documented, not exported, and not said to appear only "
                 "in some states" % n)
    for n in only:
        if n not in every:
            fail("%s: in \"Only in some states\" but not in the table of "
                 "every metric" % n)


# Grafana's variables in a query, as values PromQL parses.
GRAFANA_VARS = [("$__rate_interval", "5m"), ("$__interval", "1m"),
                ("$__range", "1h")]


def grafana_queries(dash):
    """Every PromQL expression of the dashboard: the panels' targets, and
    the metric of each label_values() variable."""
    exprs = []

    def walk(v):
        if isinstance(v, dict):
            if isinstance(v.get("expr"), str):
                exprs.append(v["expr"])
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    walk(dash.get("panels", []))
    for var in dash.get("templating", {}).get("list", []):
        q = var.get("query")
        q = q.get("query") if isinstance(q, dict) else q
        m = re.match(r"^\s*label_values\((.*),\s*\w+\)\s*$", q or "")
        if var.get("type") == "query":
            if m is None:
                fail("variable %s: not label_values(METRIC, LABEL): %r" %
                     (var.get("name"), q))
            else:
                exprs.append(m.group(1))
    return exprs


def selector_names(node, out):
    """Adds the metric name of every vector selector under node."""
    if isinstance(node, promql_parser.VectorSelector):
        out.add(node.name)
        return
    if isinstance(node, promql_parser.MatrixSelector):
        selector_names(node.vector_selector, out)
    elif isinstance(node, (promql_parser.AggregateExpr,
                           promql_parser.ParenExpr, promql_parser.UnaryExpr,
                           promql_parser.SubqueryExpr)):
        selector_names(node.expr, out)
        if getattr(node, "param", None) is not None:
            selector_names(node.param, out)
    elif isinstance(node, promql_parser.BinaryExpr):
        selector_names(node.lhs, out)
        selector_names(node.rhs, out)
    elif isinstance(node, promql_parser.Call):
        for a in node.args:
            selector_names(a, out)


def check_dashboard(path, fams, every, only):
    dash = json.load(open(path))
    known = set()
    for name, (kind, samples) in fams.items():
        known |= {s.name for s in samples} | series_names(name, kind)
    for n in only:
        kind = every.get(n, "gauge")
        base = n[:-len("_total")] if kind == "counter" else n
        known |= series_names(base, kind)
    exprs = grafana_queries(dash)
    if not exprs:
        fail("%s: no expression" % path)
    for e in exprs:
        q = e
        for var, value in GRAFANA_VARS:
            q = q.replace(var, value)
        try:
            ast = promql_parser.parse(q)
        except Exception as ex:  # the parser raises its own types
            fail("%s: does not parse: %r: %s" % (path, e, ex))
            continue
        names = set()
        selector_names(ast, names)
        if not names:
            fail("%s: names no metric: %r" % (path, e))
        for n in sorted(names - known):
            fail("%s: %r names %s, which kedge does not export" %
                 (path, e, n))
    return len(exprs)


def main():
    scrape, docs, dashboard = sys.argv[1:4]
    fams = families_of(open(scrape).read())
    check_format(fams)
    every, only = docs_tables(docs)
    check_docs(fams, every, only)
    n = check_dashboard(dashboard, fams, every, only)
    for f in failures:
        print(f)
    if failures:
        sys.exit(1)
    print("%d families, %d documented (%d only in some states), %d "
          "dashboard queries" % (len(fams), len(every), len(only), n))


main()
