"""metrics_scrape.py -- GET /metrics read as Prometheus reads it, for the
integration tests: every sample belongs to a family declared by HELP and
TYPE lines before it, every value is a number, and every histogram's
buckets are cumulative and end with le="+Inf" equal to its _count.
"""

import re

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*)?\})? '
                    r'(-?[0-9.e+]+|\+Inf)$')
FAMILY_SUFFIXES = ("_bucket", "_sum", "_count")


async def scrape(server, source="127.0.0.1"):
    """GET /metrics (from the address `source`), checked whole;
    {(name, frozenset(labels)): value}."""
    status, headers, body = await server.http("GET", "/metrics", source=source)
    assert status == 200, (status, body)
    assert headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8", headers
    assert int(headers["content-length"]) == len(body)
    types, samples = {}, {}
    for line in body.decode().splitlines():
        if line.startswith("# HELP "):
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            assert kind in ("counter", "gauge", "histogram"), line
            types[name] = kind
            continue
        match = SAMPLE.match(line)
        assert match, f"not a sample line: {line!r}"
        name, labels = match.group(1), match.group(3) or ""
        family = name
        if family not in types:
            family = next(name[:-len(s)] for s in FAMILY_SUFFIXES if name.endswith(s))
            assert types.get(family) == "histogram", line
        pairs = frozenset(tuple(pair.split("=", 1)) for pair in labels.split(",") if pair)
        key = (name, frozenset((k, v.strip('"')) for k, v in pairs))
        assert key not in samples, f"duplicate sample: {line}"
        samples[key] = float(match.group(5))
    check_histograms(samples, types)
    return samples


def check_histograms(samples, types):
    for family in (name for name, kind in types.items() if kind == "histogram"):
        series = {}
        for (name, labels), value in samples.items():
            if name == family + "_bucket":
                rest = frozenset(pair for pair in labels if pair[0] != "le")
                le = dict(labels)["le"]
                series.setdefault(rest, []).append((float(le), value))
        for rest, buckets in series.items():
            values = [value for _, value in sorted(buckets)]
            assert values == sorted(values), (family, rest, buckets)
            assert max(buckets)[0] == float("inf")
            assert values[-1] == samples[(family + "_count", rest)], (family, rest)


def value(samples, name, **labels):
    return samples[(name, frozenset(labels.items()))]
