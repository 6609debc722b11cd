#!/usr/bin/env bash
# The installed documentation has no broken links: `cmake --install` of this
# build into a fresh prefix, then every relative link of every markdown page
# under share/mpsfw must name a file or folder there (installed in the source
# tree's layout).
#
#   tests/install/test_doc_links.sh --build DIR --mpiexec PATH [--work DIR]
here=$(cd "$(dirname "$0")" && pwd)
source "$here/install_lib.sh" "$@"
prefix=$WORK/prefix

install_into "$prefix"
docs=$prefix/share/mpsfw
[ -e "$docs/docs/input-format.md" ] || fail "cmake --install did not install share/mpsfw/docs/input-format.md"
[ ! -e "$docs/docs/archive" ] || fail "docs/archive (the performance journal) was installed"
python3 "$here/check_doc_links.py" "$docs" || fail "broken links in the installed documentation ($docs)"
echo "doc links: ok ($docs)"
