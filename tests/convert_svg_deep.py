#!/usr/bin/env python3
"""convert_svg_deep.py - the SVG flame graph shows its root on the first screen.

A flame graph is drawn root at the bottom; a deep one (a recursion 70 frames deep) was
taller than a window and opened blank, its root 1,118 px down. A graph taller than one
screen (FIRST_SCREEN px) is drawn root at the top (an icicle graph), its details line
under the title; a shallow one keeps the root at the bottom. Checked on the file itself:
every frame inside the viewBox, the root frame's rectangle within the first screen, each
callee one frame height below (icicle) or above (flame) its caller, for depths 3 and 70.
usage: convert_svg_deep.py FLIGHTREC CONVERT_DEEP_TRACE WORKDIR
"""
import os
import sys
import xml.etree.ElementTree as ET

from frtest import check, finish, run_ok, workdir

flightrec, gen, work = sys.argv[1:4]
workdir(work, fresh=True)
SVG = "{http://www.w3.org/2000/svg}"
FIRST_SCREEN = 720          # px: the height a browser window shows without scrolling

for depth, icicle in ((3, False), (70, True)):
    trace = os.path.join(work, "deep%d.fr" % depth)
    out = os.path.join(work, "deep%d.svg" % depth)
    run_ok(gen, trace, str(depth))
    run_ok(flightrec, "convert", trace, "--format", "svg", "-o", out)
    root = ET.parse(out).getroot()
    vb = [float(v) for v in root.get("viewBox").split()]
    height = float(root.get("height"))
    check(vb[3] == height, "depth %d: viewBox height %s, height %s" % (depth, vb[3], height))
    frames = {}
    for g in root.iter(SVG + "g"):
        if g.get("class") == "f":
            r = g.find(SVG + "rect")
            frames.setdefault(int(g.get("fd")), []).append(float(r.get("y")))
    deepest = max(frames)
    check(deepest == depth + 2, "depth %d: deepest frame at %d, want %d" % (depth, deepest, depth + 2))
    root_y = frames[0][0]
    check(0 <= root_y and root_y + 15 <= FIRST_SCREEN,
          "depth %d: the root frame is at y=%.1f, not on the first screen (%d px)" % (depth, root_y, FIRST_SCREEN))
    for d, ys in frames.items():
        for y in ys:
            check(0 <= y and y + 15 <= height, "depth %d: a frame at depth %d (y=%.1f) outside 0..%d"
                  % (depth, d, y, height))
            want = root_y + (16 * d if icicle else -16 * d)
            check(y == want, "depth %d: a frame at depth %d has y=%.1f, want %.1f (%s)"
                  % (depth, d, y, want, "root at the top" if icicle else "root at the bottom"))
    details = [t for t in root.iter(SVG + "text") if t.get("id") == "details"][0]
    check(float(details.get("y")) <= FIRST_SCREEN,
          "depth %d: the details line at y=%s is off the first screen" % (depth, details.get("y")))
finish("flame graphs of depth 3 and 70 show their root on the first screen")
