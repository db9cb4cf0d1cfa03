"""Run the simulated cmdq harness and read what it prints.

Used by calibrate.py and predict.py. A run is a function of its arguments
(the simulation is deterministic), so results are cached by their command
line in a directory given by the caller.
"""

import hashlib
import json
import math
import os
import subprocess

MODEL_VERSION = "sim-2"


class RunError(Exception):
    """A run failed a check, hit the watchdog, or printed no result.
    .status: 'failed' (a harness check, exit 1), 'refused' (the variant
    refused the set-up), 'watchdog' (exit 3), or 'error' (anything else:
    the simulation's own error, a crash, a timeout)."""

    def __init__(self, msg, status="error"):
        super().__init__(msg)
        self.status = status


def parse(text):
    """The RESULT line's fields, the SIMPROFILE line's, and the points and
    lines of the contention profile."""
    out = {"result": None, "profile": None, "points": [], "lines": []}
    for line in text.splitlines():
        kind, _, rest = line.partition(" ")
        if kind not in ("RESULT", "SIMPROFILE", "SIMPOINT", "SIMLINE"):
            continue
        fields = {}
        key = None
        for tok in rest.split(" "):
            if "=" in tok:
                key, _, val = tok.partition("=")
                fields[key] = val
            elif key is not None:
                # a value with spaces: a point's or a field's name
                fields[key] += " " + tok
        if kind == "RESULT":
            out["result"] = fields
        elif kind == "SIMPROFILE":
            out["profile"] = fields
        elif kind == "SIMPOINT":
            out["points"].append(fields)
        else:
            out["lines"].append(fields)
    return out


def args_for(profile, cpus, threads, seconds, shift, lazy=0, sets=(), seed=1,
             work="unmap", variant="?", burst=1, extra=()):
    a = ["--sim-profile=" + profile, "--cpus", str(cpus), "--threads", str(threads),
         "--seconds", repr(seconds), "--shift", str(shift), "--work", work,
         "--seed", str(seed), "--variant", variant, "--watchdog", "5"]
    if lazy:
        a += ["--lazy", str(lazy)]
    if burst > 1:
        a += ["--burst", str(burst)]
    for kv in sets:
        a.append("--sim-set=" + kv)
    a += list(extra)
    a.append("--sim-report=-")
    return a


def run(binary, args, cache=None):
    """Run binary with args; return parse()'s dict. Raises RunError when
    the run failed (its exit status and the first failure line)."""
    key = None
    if cache:
        h = hashlib.sha256()
        h.update(_file_id(binary).encode())
        for a in args:
            h.update(b"\0" + a.encode())
            if a.startswith("--sim-profile="):
                h.update(_file_id(a.split("=", 1)[1]).encode())
        key = os.path.join(cache, h.hexdigest()[:24] + ".json")
        if os.path.exists(key):
            with open(key) as f:
                return json.load(f)
    try:
        p = subprocess.run([binary] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=3600)
    except subprocess.TimeoutExpired:
        raise RunError("%s %s: no end after 3600 s" % (binary, " ".join(args)))
    res = parse(p.stdout)
    if p.returncode != 0 or res["result"] is None:
        lines = p.stdout.splitlines()
        first = next((l for l in lines if l.startswith(("FAIL", "WATCHDOG", "REFUSED", "sim:",
                                                         "cmdq-harness:"))), "")
        if any(l.startswith("REFUSED") for l in lines):
            status = "refused"
        elif p.returncode == 1 and any(l.startswith("FAIL") for l in lines):
            status = "failed"
        elif p.returncode == 3 and any(l.startswith("WATCHDOG") for l in lines):
            status = "watchdog"
        else:
            status = "error"
        raise RunError("%s %s: exit %d%s" % (os.path.basename(os.path.dirname(os.path.dirname(binary))),
                                            " ".join(args), p.returncode,
                                            (": " + first) if first else ""), status)
    res["exit"] = p.returncode
    if key:
        os.makedirs(cache, exist_ok=True)
        with open(key + ".tmp", "w") as f:
            json.dump(res, f)
        os.replace(key + ".tmp", key)
    return res


def _file_id(path):
    st = os.stat(path)
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def rate(res):
    """map+unmap per CPU per (virtual) second."""
    return float(res["result"]["ops_per_s_per_cpu"])


def log_error(pred, pub):
    return math.log(pred / pub)


def within(pred_ratio, pub_ratio, tol):
    """True if pred_ratio is within +-tol (a fraction) of pub_ratio."""
    return abs(pred_ratio / pub_ratio - 1) <= tol + 1e-9


def same_order(pred, pub):
    """True if the variants (dicts name -> figure) sort the same way."""
    return sorted(pred, key=lambda k: pred[k]) == sorted(pub, key=lambda k: pub[k])


def read_profile(path):
    """The profile's key = value pairs (levels as 'level NAME')."""
    kv = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            k, _, v = line.partition("=")
            kv[k.strip()] = v.strip()
    return kv
