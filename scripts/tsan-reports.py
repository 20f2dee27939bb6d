#!/usr/bin/env python3
"""Prints ThreadSanitizer's reports from `make tsan`'s log directory, shortened to what names a
race: the warning, each access and the location with their first frames, and the summary.

CI shows the end of a failed run's output, and a whole report is long: its two access stacks,
which say what raced, would be cut off above the threads' creation stacks. So `make tsan` writes
the reports to files (TSAN_OPTIONS log_path) and prints them through this, last.

Usage: tsan-reports.py DIRECTORY   (exits 1 when there is a report, 0 when there is none)
"""
import os
import re
import sys

FRAMES = 8
directory = sys.argv[1]
reports = sorted(os.path.join(directory, name) for name in os.listdir(directory)) if os.path.isdir(directory) else []
if not reports:
    sys.exit(0)
for path in reports:
    print(f"== {path}")
    frames_left = 0
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if re.match(r"^(WARNING|SUMMARY)", line) or (re.match(r"^  \S", line) and not line.startswith("  Thread ")):
            print(line)
            frames_left = FRAMES
        elif frames_left and re.match(r"^\s+#\d+ ", line):
            # Keep the function and the file; drop the module path and build id.
            print(re.sub(r" \((\S+)\+0x[0-9a-f]+\)( \(BuildId: [0-9a-f]+\))?", r" (\1)", line))
            frames_left -= 1
        elif not line.strip():
            frames_left = 0
sys.exit(1)
