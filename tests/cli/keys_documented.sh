#!/usr/bin/env bash
# docs/input-format.md in step with the schema the solver validates with
# (`solver --list-keys`):
# - every key --list-keys prints is documented: a group's key as `key` in its
#   group's section ("## `/group`"), a root key anywhere; every key a section's
#   table documents is one the solver knows;
# - each table row (`key` or `a`, `b`, `c` | type | default | meaning) states
#   what --list-keys says of each of its keys:
#   type     integer, number or string with the same range: `≥ 0`, `> 0, ≤ 1e6`,
#            `in [1, 2^20]` or `in (0, 3600]` (compared as numbers), or the
#            same choices in the same order: `auto\|host\|cuda`;
#   default  the same value (numbers compared as numbers), `""`, or `required`;
#   meaning  the doc may say it its own way and say more, but (1) it has at
#            least half of the words of the solver's meaning, and (2) every
#            special value the solver's meaning explains (`0: ...`, `empty: ...`,
#            `auto: ...`) the doc explains too: `V:` and all the words the
#            solver gives it (what 0 or empty means is where docs drift).
#   Words: lower case, 3 letters or more, a few little words left out; a doc
#   word matches when it starts with the first 5 letters of the solver's word.
#   keys_documented.sh SOLVER DOC
set -uo pipefail
solver=$1 doc=$2
keys=$("$solver" --list-keys) || { echo "FAIL: $solver --list-keys failed"; exit 1; }
python3 - "$doc" "$keys" <<'EOF'
import re, sys

doc_file, listing = sys.argv[1], sys.argv[2]
doc = open(doc_file, encoding="utf-8").read()
fails = []

def num(text):  # 1e+15, 2^20
    base, _, exp = text.partition("^")
    return float(base) ** float(exp) if exp else float(base)

def type_of(kind, lo_bracket, lo, hi, bounds):
    """(kind, lowest, lowest excluded, highest) or ("one of", choices)."""
    if kind.startswith("one of"):
        return ("one of", tuple(kind[7:].split("|")))
    t = [kind.split()[-1], None, False, None]
    if lo_bracket:
        t[1:] = num(lo), lo_bracket == "(", num(hi)
    for op, value in re.findall(r"(>=|>|<=) ?([-+.\w^]+)", bounds or ""):
        if op == "<=":
            t[3] = num(value)
        else:
            t[1:3] = num(value), op == ">"
    return tuple(t)

RANGE = r"(?: in ([\[(])([^,]+), ([^\]]+)\]|((?:,? ?(?:>=|>|<=) ?[-+.\w^]+)*))"
# --list-keys: "  group.key  default V; TYPE (meaning)", "  key  required; TYPE (meaning)".
spec = {}
for line in listing.splitlines():
    m = re.match(r"  ([a-z_.]+)  (?:required|default (.*?)); ((an integer|a number|a string|one of \S+)"
                 + RANGE + r")(?: \((.*)\))?$", line)
    if m:
        spec[m[1]] = dict(default="required" if m[2] is None else m[2], type_text=m[3],
                          type=type_of(*m.group(4, 5, 6, 7, 8)), meaning=m[9] or "")
    elif line.startswith("  "):
        fails.append(f"cannot read this line of --list-keys: {line}")
if not spec:
    sys.exit("FAIL: --list-keys printed no keys")

def doc_type(cell):
    """The type cell as type_of's tuple: integer/number/string and a range, or choices a\\|b."""
    cell = cell.replace("≥", ">=").replace("≤", "<=")
    if re.fullmatch(r"[a-z_-]+(\\\|[a-z_-]+)*", cell) and cell not in ("integer", "number", "string"):
        return type_of("one of " + cell.replace("\\|", "|"), None, None, None, None)
    m = re.fullmatch(r"(integer|number|string)" + RANGE, cell)
    try:
        return type_of(*m.groups()) if m else None
    except ValueError:  # a bound that is not a number
        return None

def same_default(a, b):
    try:
        return float(a) == float(b)
    except ValueError:
        return a == b

STOP = set("the and for its from with where else every each one this that than not which who whom "
           "there too their are has can may".split())
def words(text):
    return [w for w in re.findall(r"[a-z0-9_^]+", text.lower()) if len(w) > 2 and w not in STOP]
def missing(solver_text, doc_words):
    return [w for w in words(solver_text) if not any(d.startswith(w[:5]) for d in doc_words)]

def meaning_fails(solver_meaning, doc_meaning):
    doc_meaning = doc_meaning.replace("`", "")
    doc_words, out = words(doc_meaning), []
    gone = missing(solver_meaning, doc_words)
    if len(gone) * 2 > len(words(solver_meaning)):
        out.append(f"has too few of the solver's words (missing: {' '.join(gone)})")
    # A special value: "V: what it means" at the start, after ';' or '('; up to ';' or the end.
    for value, says in re.findall(r"(?:^|[;(] ?)([\w.+-]+): ((?:[^;()]|\([^()]*\))*)", solver_meaning):
        gone = missing(says, doc_words)
        if f"{value}:" not in doc_meaning or gone:
            out.append(f"does not say '{value}: {says.strip()}'" + (f" (missing: {' '.join(gone)})" if gone else ""))
    return out

def section(group):  # the text of "## `/group`" up to the next "## " heading
    m = re.search(rf"^## `/{group}`.*?\n(.*?)(?=^## |\Z)", doc, re.S | re.M)
    return m[1] if m else ""

documented = set()
for group in sorted({n.split(".")[0] for n in spec if "." in n}):
    for row in re.findall(r"^\| `.*", section(group), re.M):
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]
        if len(cells) != 4:
            fails.append(f"{doc_file} /{group}: a row without 4 cells: {row}")
            continue
        for key in re.findall(r"`([a-z_0-9]+)`", cells[0]):
            name = f"{group}.{key}"
            documented.add(name)
            if name not in spec:
                fails.append(f"{doc_file} documents {name}, which the solver does not know")
                continue
            s = spec[name]
            if doc_type(cells[1]) != s["type"]:
                fails.append(f"{name} type/range: doc says '{cells[1]}', solver says '{s['type_text']}'")
            if not same_default(cells[2], s["default"]):
                fails.append(f"{name} default: doc says '{cells[2]}', solver says '{s['default']}'")
            for why in meaning_fails(s["meaning"], cells[3]):
                fails.append(f"{name} meaning: doc {why}; solver says '{s['meaning']}'")
for name in spec:
    if "." in name and name not in documented:
        fails.append(f"{name} is not documented in {doc_file} (a row of section /{name.split('.')[0]})")
    if "." not in name and f"`{name}`" not in doc:
        fails.append(f"root key {name} is not documented in {doc_file}")
for f in fails:
    print("FAIL:", f)
if not fails:
    print(f"{doc_file} documents all {len(spec)} keys as the solver does (type, default, range, meaning), and no others")
sys.exit(1 if fails else 0)
EOF
