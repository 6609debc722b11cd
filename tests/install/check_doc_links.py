#!/usr/bin/env python3
"""Every relative link in the markdown files under DIR resolves to a file or
folder under DIR's tree: run on the installed share/mpsfw, where a link
that works in the source tree (docs/x.md, ../slurm/) may point at nothing.

  check_doc_links.py DIR

Lists each broken link as FILE:LINE: TARGET and exits 1 if there is one."""
import os
import re
import sys

# [text](target) and [text](target "title"); images too. Reference-style
# definitions ([name]: target) are not used in these docs.
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def links(path):
    in_fence = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            # Inline code is not a link.
            for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
                yield number, target


def relative(target):
    return not re.match(r"^([a-z][a-z0-9+.-]*:|#|/)", target, re.IGNORECASE)


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: check_doc_links.py DIR (a folder of markdown files)", file=sys.stderr)
        return 2
    top = argv[1]
    checked, broken = 0, []
    for folder, _, files in os.walk(top):
        for name in sorted(files):
            if not name.endswith(".md"):
                continue
            path = os.path.join(folder, name)
            for number, target in links(path):
                if not relative(target):
                    continue
                checked += 1
                file_part = target.split("#", 1)[0]
                if not os.path.exists(os.path.join(folder, file_part)):
                    broken.append(f"{os.path.relpath(path, top)}:{number}: {target}")
    for line in broken:
        print(f"broken link: {line}", file=sys.stderr)
    print(f"{checked} relative links checked, {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
