#!/usr/bin/env bash
# Runs scripts/spack_concretize.sh against the Spack checkouts in
# build-thirdparty/ (docs/building.md, "Spack"), not a $SPACK_ROOT of another
# version; skipped (77) where there are none, as on a fresh clone: concretizing
# needs Spack, and nothing here fetches it.
set -euo pipefail
root=${1:?usage: concretize_or_skip.sh MPSFW_ROOT}
spack_root=$root/build-thirdparty/spack
python=${SPACK_PYTHON:-$root/build-thirdparty/spack-venv/bin/python}
if [[ ! -x $spack_root/bin/spack || ! -f $root/build-thirdparty/spack-packages/repos/spack_repo/builtin/repo.yaml ]]; then
  echo "SKIP: no Spack checkout in $spack_root or spack-packages in $root/build-thirdparty (docs/building.md, \"Spack\")"
  exit 77
fi
if ! "$python" -c 'import clingo' 2>/dev/null; then
  echo "SKIP: $python cannot import clingo (docs/building.md, \"Spack\")"
  exit 77
fi
exec "$root/scripts/spack_concretize.sh" "$spack_root" "$root/build-thirdparty/spack-packages"
