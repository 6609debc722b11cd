#!/usr/bin/env bash
# Concretizes mpsfw's Spack recipe (packaging/spack) and spack.yaml against a
# Spack checkout, offline: nothing is downloaded, nothing is built, and of the
# configuration only the checkout's own and a throwaway folder's are read (not
# ~/.spack), only the latter written. Prints one line per case and exits
# non-zero if any case fails.
#   scripts/spack_concretize.sh [SPACK_ROOT [SPACK_PACKAGES]]
# SPACK_ROOT: a Spack >= 1.0 checkout (default $SPACK_ROOT, else
# build-thirdparty/spack); SPACK_PACKAGES: a checkout of spack-packages, the
# builtin repository (default build-thirdparty/spack-packages).
# The concretizer needs clingo: SPACK_PYTHON, else build-thirdparty/spack-venv,
# is a Python that imports it (python3 -m venv build-thirdparty/spack-venv &&
# build-thirdparty/spack-venv/bin/pip install clingo); Spack's own bootstrap,
# which downloads, stays off. docs/building.md ("Spack") says how to get the
# checkouts; packaging/spack/concretize-output.txt holds a recorded run.
set -euo pipefail

usage() {
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
[[ $# -le 2 ]] || usage
case "${1:-}" in -h | --help) usage ;; esac

root=$(cd "$(dirname "$0")/.." && pwd)
spack_root=${1:-${SPACK_ROOT:-$root/build-thirdparty/spack}}
packages=${2:-$root/build-thirdparty/spack-packages}
[[ -x $spack_root/bin/spack ]] || { echo "spack_concretize: no Spack at $spack_root (bin/spack)" >&2; usage; }
builtin=$packages/repos/spack_repo/builtin
[[ -f $builtin/repo.yaml ]] || { echo "spack_concretize: no builtin repository at $builtin" >&2; usage; }
python=${SPACK_PYTHON:-$root/build-thirdparty/spack-venv/bin/python}
if ! "$python" -c 'import clingo' 2>/dev/null; then
  echo "spack_concretize: $python cannot import clingo (set SPACK_PYTHON, or make" \
    "build-thirdparty/spack-venv with clingo: see the comment at the top)" >&2
  exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/mpsfw-spack.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Spack reads its configuration from the checkout (etc/spack) and from here
# only; any network access goes to a closed port and fails at once.
export SPACK_PYTHON=$python SPACK_USER_CONFIG_PATH=$work/user SPACK_SYSTEM_CONFIG_PATH=$work/system \
  SPACK_USER_CACHE_PATH=$work/cache
export http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9 \
  HTTPS_PROXY=http://127.0.0.1:9 no_proxy= NO_PROXY=
mkdir -p "$work/user" "$work/system"
cat > "$work/user/repos.yaml" <<EOF
repos::
  mpsfw: $root/packaging/spack
  builtin: $builtin
EOF
printf 'bootstrap:\n  enable: false\n' > "$work/user/bootstrap.yaml"
printf 'mirrors:: {}\n' > "$work/user/mirrors.yaml"
cat > "$work/user/config.yaml" <<EOF
config:
  install_tree:
    root: $work/opt
  build_stage: [$work/stage]
  source_cache: $work/source-cache
  misc_cache: $work/misc-cache
  connect_timeout: 1
EOF
spack() { "$spack_root/bin/spack" --color=never "$@"; }

rev() { git -C "$1" describe --tags --match 'v*' --always 2>/dev/null || echo "not a git checkout"; }
echo "mpsfw Spack concretization, $(date -u '+%Y-%m-%d %H:%M UTC')"
changed=committed
git -C "$root" diff --quiet HEAD -- packaging/spack spack.yaml 2>/dev/null ||
  changed="with uncommitted changes to packaging/spack or spack.yaml"
echo "mpsfw:          $(git -C "$root" rev-parse HEAD 2>/dev/null) (recipe and spack.yaml $changed)"
echo "Spack:          $(git -C "$spack_root" rev-parse HEAD 2>/dev/null) ($(rev "$spack_root")), $(spack --version)"
echo "spack-packages: $(git -C "$packages" rev-parse HEAD 2>/dev/null) ($(rev "$packages"))"
echo "clingo:         $("$python" -c 'import clingo; print(clingo.__version__)') ($("$python" --version))"
# Spack >= 1.0 treats compilers as external packages: register the machine's.
spack compiler find --scope user > "$work/compilers.log" 2>&1 ||
  { cat "$work/compilers.log"; exit 1; }
echo "compilers:      $(spack compiler list 2>/dev/null | grep '@' | tr -s ' \n' ' ')"
echo

# One case's tree (spack spec -I, or spack.lock for an environment) to a line:
# result, mpsfw and kokkos nodes, how many nodes are built and how many are
# externals. A Kokkos outside the recipe's bounds, or without the requested
# cuda_arch, fails the case.
summarize() { # NAME LOG [LOCK]
  "$python" - "$@" <<'PY'
import json, re, sys, textwrap
name, log = sys.argv[1], sys.argv[2]
nodes = []  # (status, name, version, text)
if len(sys.argv) > 3:
    lock = json.load(open(sys.argv[3]))
    for n in lock["concrete_specs"].values():
        text = " ".join("%s%s" % ("+" if v is True else "~", k) if isinstance(v, bool)
                        else "%s=%s" % (k, ",".join(v) if isinstance(v, list) else v)
                        for k, v in sorted(n.get("parameters", {}).items())
                        if k in ("cuda", "cuda_arch", "schedulers", "fabrics"))
        nodes.append(("[e]" if "external" in n else "-", n["name"], n["version"], text))
else:
    for line in open(log):
        m = re.match(r"^(\[e\]|\[\+\]|\[\^\]| - )\s+\^?([\w-]+)@=?(\S+?)(?=[+~ ]|$)(.*)", line)
        if m:
            nodes.append((m.group(1).strip(), m.group(2), m.group(3), m.group(4)))
by = {n[1]: n for n in nodes}
problems = []
if "kokkos" in name:
    k = by.get("kokkos")
    if not k:
        problems.append("no kokkos")
    else:
        v = tuple(int(x) for x in re.findall(r"\d+", k[2])[:3])
        low = (4, 7, 2) if "+cuda" in name else (3, 4, 0)
        if not low <= v < (4, 8, 0):
            problems.append("kokkos@%s outside the recipe's bounds" % k[2])
        arch = re.search(r"cuda_arch=(\S+)", name)
        if arch and "cuda_arch=%s" % arch.group(1) not in k[3]:
            problems.append("kokkos without cuda_arch=%s" % arch.group(1))
        if arch and "+cuda" not in k[3]:
            problems.append("kokkos without +cuda")
build = sorted({n[1] for n in nodes if n[0] == "-"})
ext = sorted({n[1] for n in nodes if n[0] == "[e]"})
show = []
for p in ("mpsfw", "kokkos", "openmpi"):
    if p in by and (p != "openmpi" or len(sys.argv) > 3):
        keys = ("schedulers", "fabrics") if p == "openmpi" else ("cuda_arch",)
        cuda = ["+cuda"] if p == "openmpi" and "+cuda" in by[p][3] else []
        show.append(" ".join(["%s@%s" % (p, by[p][2])] + cuda + [m.group(0) for k in keys
                             for m in [re.search(r"%s:?=\S+" % k, by[p][3])] if m]))
result = "ok" if nodes and not problems else "FAILED"
print("%-46s %-6s %3d to build, %2d external  %s" % (name, result, len(build), len(ext), "  ".join(show)))
for p in problems:
    print("    check: " + p)
if nodes:
    for label, names in (("external: ", ext), ("built:    ", build)):
        print(textwrap.fill(", ".join(names) or "-", 100, initial_indent="    " + label,
                            subsequent_indent=" " * 14, break_on_hyphens=False))
sys.exit(0 if result == "ok" else 1)
PY
}

failed=0
n=0
one() { # NAME COMMAND... : runs a case, prints its line (and Spack's error if it failed)
  local name=$1 lock=
  shift
  n=$((n + 1))
  local log=$work/case$n.log
  if [[ $1 == env ]]; then lock=$2/spack.lock; shift 2; fi
  if ! "$@" > "$log" 2>&1; then
    printf '%-46s %s\n' "$name" "FAILED"
    grep -v '^==> \(Warning\|Concretized\)' "$log" | head -20 | sed 's/^/    /'
    failed=$((failed + 1))
    return 0
  fi
  summarize "$name" "$log" ${lock:+"$lock"} || failed=$((failed + 1))
}

for s in "mpsfw" "mpsfw +cuda cuda_arch=90" "mpsfw +kokkos" "mpsfw +kokkos +cuda cuda_arch=90"; do
  # shellcheck disable=SC2086 # a spec is several words
  one "$s" spack spec -I $s
done

# Kokkos builds for one GPU arch only: two with +kokkos must not concretize.
n=$((n + 1))
if spack spec -I mpsfw +kokkos +cuda cuda_arch=80,90 > "$work/case$n.log" 2>&1; then
  printf '%-46s %s\n' "mpsfw +kokkos +cuda cuda_arch=80,90" "FAILED (concretized; Kokkos takes one arch)"
  failed=$((failed + 1))
elif grep -q "conflicting variant values 'cuda_arch=" "$work/case$n.log"; then
  printf '%-46s %s\n' "mpsfw +kokkos +cuda cuda_arch=80,90" "fails, as it should (Kokkos takes one arch):"
  grep -m1 "conflicting variant values 'cuda_arch=" "$work/case$n.log" | sed 's/^ */    /'
else
  printf '%-46s %s\n' "mpsfw +kokkos +cuda cuda_arch=80,90" "FAILED (not for cuda_arch):"
  head -5 "$work/case$n.log" | sed 's/^/    /'
  failed=$((failed + 1))
fi

# spack.yaml as shipped, in a copy (Spack writes spack.lock beside it) that
# finds ./packaging/spack as in the repository.
env_copy() { # DIR
  mkdir -p "$1" && cp "$root/spack.yaml" "$1/" && ln -s "$root/packaging" "$1/packaging"
}
env_copy "$work/env0"
one "spack.yaml" env "$work/env0" spack -e "$work/env0" concretize

# Two sites whose Slurm, CUDA and UCX are externals Spack may not build (fake
# prefixes: concretizing does not look at them; a later config scope wins).
mkdir -p "$work/site" "$work/site-a" "$work/site-b"
cat > "$work/site/packages.yaml" <<'EOF'
packages:
  slurm:
    externals:
    - spec: slurm@23.02.8
      prefix: /opt/site/slurm
    buildable: false
  cuda:
    externals:
    - spec: cuda@13.0.2
      prefix: /opt/site/cuda-13.0
    buildable: false
  ucx:
    externals:
    - spec: ucx@1.16.0 +cuda +thread_multiple
      prefix: /opt/site/ucx
    buildable: false
EOF
# Site A: Open MPI built by Spack on the site's Slurm and UCX.
printf 'packages:\n  openmpi:\n    require: "schedulers=slurm fabrics=ucx"\n' > "$work/site-a/packages.yaml"
env_copy "$work/env-a"
one "spack.yaml + site slurm, cuda, ucx" env "$work/env-a" \
  spack -C "$work/site" -C "$work/site-a" -e "$work/env-a" concretize
# Site B: also its own Open MPI, PMIx and hwloc.
cat > "$work/site-b/packages.yaml" <<'EOF'
packages:
  openmpi:
    externals:
    - spec: openmpi@4.1.6 +cuda schedulers=slurm fabrics=ucx
      prefix: /opt/site/openmpi
    buildable: false
  pmix:
    externals:
    - spec: pmix@4.2.9
      prefix: /opt/site/pmix
    buildable: false
  hwloc:
    externals:
    - spec: hwloc@2.9.3 +cuda
      prefix: /opt/site/hwloc
    buildable: false
EOF
env_copy "$work/env-b"
one "spack.yaml + site openmpi, slurm, cuda, ..." env "$work/env-b" \
  spack -C "$work/site" -C "$work/site-b" -e "$work/env-b" concretize

# The release tarball from a mirror, as a site without the project's host gets
# it (docs/building.md): remade from the commit the recipe names and stored
# under the recipe's sha256, where Spack looks; Spack's fetch checks the file.
version=0.1.0
recipe=$root/packaging/spack/packages/mpsfw/package.py
commit=$(grep -o 'Commit [0-9a-f]\{40\}' "$recipe" | head -1 | cut -d' ' -f2)
sha=$(grep -o "version(\"$version\", sha256=\"[0-9a-f]\{64\}" "$recipe" | grep -o '[0-9a-f]\{64\}')
name="spack fetch mpsfw@$version (file mirror)"
n=$((n + 1))
if [[ -n $commit && -n $sha ]] && git -C "$root" cat-file -e "$commit^{commit}" 2>/dev/null; then
  tarball=$work/mpsfw-$version.tar.gz
  git -C "$root" archive --prefix="mpsfw-$version/" -o "$tarball" "$commit"
  made=$(sha256sum "$tarball" | cut -d' ' -f1)
  mkdir -p "$work/mirror/_source-cache/archive/${sha:0:2}" "$work/site-mirror"
  cp "$tarball" "$work/mirror/_source-cache/archive/${sha:0:2}/$sha.tar.gz"
  printf 'mirrors:\n  site: file://%s\n' "$work/mirror" > "$work/site-mirror/mirrors.yaml"
  if spack -C "$work/site-mirror" fetch "mpsfw@=$version" > "$work/case$n.log" 2>&1; then
    printf '%-46s %s\n' "$name" "ok     sha256 ${sha:0:16}... (git archive of ${commit:0:12})"
  else
    printf '%-46s %s\n' "$name" "FAILED"
    [[ $made == "$sha" ]] || echo "    git archive of $commit here has sha256 $made, the recipe $sha"
    grep -v '^==> Warning' "$work/case$n.log" | tail -8 | sed 's/^/    /'
    failed=$((failed + 1))
  fi
else
  printf '%-46s %s\n' "$name" "FAILED (no version $version with sha256, or its commit ${commit:-?} is not in this clone)"
  failed=$((failed + 1))
fi

echo
echo "$n cases, $failed failed"
[[ $failed -eq 0 ]]
