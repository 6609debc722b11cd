# Shared by the install tests (sourced, not run): their options
# (--build DIR --mpiexec PATH [--work DIR]), a fresh WORK folder, fail(), and
# install_into PREFIX (cmake --install of BUILD).
set -euo pipefail
BUILD="" MPIEXEC="" WORK=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD=$2; shift 2 ;;
    --mpiexec) MPIEXEC=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    *) echo "$(basename "$0"): unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$BUILD" ] && [ -n "$MPIEXEC" ] || { echo "$(basename "$0"): --build and --mpiexec are required" >&2; exit 2; }
WORK=${WORK:-$(mktemp -d)}
rm -rf "$WORK"; mkdir -p "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }
install_into() { cmake --install "$BUILD" --prefix "$1" > "$WORK/install.log"; }
