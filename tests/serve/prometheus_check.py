"""Reads `strata serve`'s GET /metrics with the Prometheus project's own parser
(prometheus_client, an independent reader of the text format) and prints its samples as JSON
for the C++ test to compare: {"metric name": [{"labels": {...}, "value": v}, ...], "types": {...}}.

usage: prometheus_check.py PORT
"""
import json
import sys
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

port = sys.argv[1]
with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics") as response:
    content_type = response.headers["Content-Type"]
    text = response.read().decode("utf-8")

samples, types = {}, {}
for family in text_string_to_metric_families(text):
    types[family.name] = family.type
    for sample in family.samples:
        samples.setdefault(sample.name, []).append({"labels": sample.labels, "value": sample.value})
print(json.dumps({"content_type": content_type, "samples": samples, "types": types}))
