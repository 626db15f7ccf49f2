/*
 * convert_svg.c - a self-contained interactive SVG flame graph, written by our own code:
 * one frame per unique stack (the calling-context tree), width = the stack's weight (self
 * time in ns of it and everything it called, or calls), root at the bottom; a graph taller
 * than one screen (FIRST_SCREEN_PX) root at the top instead (an icicle graph), so that
 * it does not open blank, its root far below the window. Inline script,
 * no external files: click a frame to zoom, "Reset zoom" or Escape to go back, hover for
 * name, time and percent, "Search" (or Ctrl-F) highlights frames matching a regular
 * expression and reports how much of the total they cover. Several traces: one flame
 * graph, a root frame per process ("[process PID NAME]") above its stacks.
 */
#include <stdlib.h>
#include "analysis.h"
#include "commands.h"
#include "fr_alloc.h"
#include "stack_spill.h"
#include "convert.h"

#define SVG_WIDTH     1200
#define FRAME_HEIGHT  16
#define TOP_MARGIN    44
#define BOTTOM_MARGIN 34
#define SIDE_MARGIN   10
#define CHAR_WIDTH    7.0   /* of the 12 px monospace label font, for fitting labels */
#define MIN_FRAME_PX  0.1   /* frames narrower than this are left out (with their callees) */
#define FIRST_SCREEN_PX 720 /* what a browser window shows without scrolling */

/* Where frames go: root at the bottom (flame) or, for a deep graph, at the top. */
struct svg_layout { uint32_t max_depth; bool icicle; };

static double frame_y(const struct svg_layout *l, uint32_t depth)
{
    uint32_t row = l->icicle ? depth : l->max_depth - depth;
    return TOP_MARGIN + (double)row * FRAME_HEIGHT;
}

static void xml_text(cv_out *o, const char *s, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        const char *rep = NULL;
        switch (s[i]) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&apos;"; break;
        default:
            if ((unsigned char)s[i] < 0x20 || s[i] == 0x7F)
                rep = " ";   /* controls are not allowed in XML 1.0; DEL is, but no
                                terminal that shows the file must see it */
        }
        if (!rep) {
            run++;
            continue;
        }
        cv_put(o, s + i - run, run);
        run = 0;
        cv_puts(o, rep);
    }
    cv_put(o, s + n - run, run);
}

/* Names kept as they are; escaped when written. Not valid UTF-8 bytes become '?', so the
 * file stays well-formed XML. */
static char *plain_name(const char *name, void *ctx)
{
    (void)ctx;
    char *s = strdup(name);
    if (!s) {
        fprintf(stderr, "flightrec convert: out of memory\n");
        exit(1);
    }
    for (unsigned char *p = (unsigned char *)s; *p; p++)
        if (*p >= 0x80)
            *p = '?';
    return s;
}

static void fixed(cv_out *o, double v)
{
    char b[32];
    int n = snprintf(b, sizeof b, "%.1f", v);
    cv_put(o, b, (size_t)n);
}

/* "1.234 ms" style. */
static void human_weight(cv_out *o, uint64_t w, enum cv_weight kind)
{
    char b[64];
    int n;
    if (kind == CV_WEIGHT_CALLS)
        n = snprintf(b, sizeof b, "%llu call%s", (unsigned long long)w, w == 1 ? "" : "s");
    else if (w >= 1000000000ull)
        n = snprintf(b, sizeof b, "%.3f s", (double)w / 1e9);
    else if (w >= 1000000ull)
        n = snprintf(b, sizeof b, "%.3f ms", (double)w / 1e6);
    else if (w >= 1000ull)
        n = snprintf(b, sizeof b, "%.3f us", (double)w / 1e3);
    else
        n = snprintf(b, sizeof b, "%llu ns", (unsigned long long)w);
    cv_put(o, b, (size_t)n);
}

static void colour(cv_out *o, const char *name)
{
    uint32_t h = 2166136261u;
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    char b[32];
    int n = snprintf(b, sizeof b, "rgb(%u,%u,%u)", 205 + h % 50, 90 + (h >> 8) % 140, 40 + (h >> 16) % 50);
    cv_put(o, b, (size_t)n);
}

static void frame(cv_out *o, const char *name, uint64_t x0, uint64_t w, uint32_t depth, uint64_t total,
                  const struct svg_layout *layout, enum cv_weight kind)
{
    double scale = (double)(SVG_WIDTH - 2 * SIDE_MARGIN) / (double)total;
    double x = SIDE_MARGIN + (double)x0 * scale, width = (double)w * scale;
    double y = frame_y(layout, depth);
    char num[64];
    CV_LIT(o, "<g class=\"f\" fx=\"");
    cv_u64(o, x0);
    CV_LIT(o, "\" fw=\"");
    cv_u64(o, w);
    CV_LIT(o, "\" fd=\"");
    cv_u64(o, depth);
    CV_LIT(o, "\"><title>");
    size_t nlen = strlen(name);
    xml_text(o, name, nlen);
    CV_LIT(o, " (");
    human_weight(o, w, kind);
    int n = snprintf(num, sizeof num, ", %.2f%%)", 100.0 * (double)w / (double)total);
    cv_put(o, num, (size_t)n);
    CV_LIT(o, "</title><rect x=\"");
    fixed(o, x);
    CV_LIT(o, "\" y=\"");
    fixed(o, y);
    CV_LIT(o, "\" width=\"");
    n = snprintf(num, sizeof num, "%.2f", width);
    cv_put(o, num, (size_t)n);
    CV_LIT(o, "\" height=\"15\" rx=\"2\" fill=\"");
    colour(o, name);
    CV_LIT(o, "\"/><text x=\"");
    fixed(o, x + 3);
    CV_LIT(o, "\" y=\"");
    fixed(o, y + 11.5);
    CV_LIT(o, "\">");
    size_t fit = width > 6 ? (size_t)((width - 6) / CHAR_WIDTH) : 0;
    if (fit >= nlen)
        xml_text(o, name, nlen);
    else if (fit >= 3) {
        xml_text(o, name, fit - 2);
        CV_LIT(o, "..");
    }
    CV_LIT(o, "</text></g>\n");
}

static const char svg_script[] =
    "<script type=\"text/ecmascript\"><![CDATA[\n"
    "'use strict';\n"
    "var W = WIDTH, M = MARGIN, CW = CHARW, frames = [], details, matchedText, zoomed = null, term = null;\n"
    "function nameOf(g) { var t = g.querySelector('title').textContent; return t.substring(0, t.lastIndexOf(' (')); }\n"
    "function num(g, a) { return parseFloat(g.getAttribute(a)); }\n"
    "function label(g, w) {\n"
    "  var n = nameOf(g), fit = Math.floor((w - 6) / CW), t = g.querySelector('text');\n"
    "  t.textContent = fit >= n.length ? n : (fit >= 3 ? n.substring(0, fit - 2) + '..' : '');\n"
    "}\n"
    "function place(g, x, w) {\n"
    "  var r = g.querySelector('rect'), t = g.querySelector('text');\n"
    "  r.setAttribute('x', x.toFixed(1)); r.setAttribute('width', Math.max(w, 0).toFixed(2));\n"
    "  t.setAttribute('x', (x + 3).toFixed(1)); label(g, w);\n"
    "}\n"
    "function zoom(z) {\n"
    "  zoomed = z;\n"
    "  var zx = num(z, 'fx'), zw = num(z, 'fw'), zd = num(z, 'fd'), span = W - 2 * M;\n"
    "  frames.forEach(function (g) {\n"
    "    var x = num(g, 'fx'), w = num(g, 'fw'), d = num(g, 'fd');\n"
    "    if (d < zd && x <= zx && x + w >= zx + zw) {\n"
    "      g.style.display = ''; g.classList.add('parent'); place(g, M, span);\n"
    "    } else if (d >= zd && x >= zx && x + w <= zx + zw) {\n"
    "      g.style.display = ''; g.classList.remove('parent');\n"
    "      place(g, M + (x - zx) / zw * span, w / zw * span);\n"
    "    } else {\n"
    "      g.style.display = 'none';\n"
    "    }\n"
    "  });\n"
    "  document.getElementById('unzoom').style.display = '';\n"
    "}\n"
    "function unzoom() {\n"
    "  zoomed = null;\n"
    "  var total = num(frames[0], 'fw'), span = W - 2 * M;\n"
    "  frames.forEach(function (g) {\n"
    "    g.style.display = ''; g.classList.remove('parent');\n"
    "    place(g, M + num(g, 'fx') / total * span, num(g, 'fw') / total * span);\n"
    "  });\n"
    "  document.getElementById('unzoom').style.display = 'none';\n"
    "}\n"
    "function search(re) {\n"
    "  term = re;\n"
    "  var ranges = [], total = num(frames[0], 'fw');\n"
    "  frames.forEach(function (g) {\n"
    "    var r = g.querySelector('rect');\n"
    "    if (!r.hasAttribute('data-fill')) r.setAttribute('data-fill', r.getAttribute('fill'));\n"
    "    if (re && re.test(nameOf(g))) {\n"
    "      r.setAttribute('fill', 'rgb(230,0,230)');\n"
    "      ranges.push([num(g, 'fx'), num(g, 'fx') + num(g, 'fw')]);\n"
    "    } else {\n"
    "      r.setAttribute('fill', r.getAttribute('data-fill'));\n"
    "    }\n"
    "  });\n"
    "  ranges.sort(function (a, b) { return a[0] - b[0]; });\n"
    "  var covered = 0, end = -1;\n"
    "  ranges.forEach(function (r) {\n"
    "    if (r[0] >= end) { covered += r[1] - r[0]; end = r[1]; }\n"
    "    else if (r[1] > end) { covered += r[1] - end; end = r[1]; }\n"
    "  });\n"
    "  matchedText.textContent = re ? 'Matched: ' + (100 * covered / total).toFixed(2) + '%' : '';\n"
    "  document.getElementById('search').textContent = re ? 'Reset search' : 'Search';\n"
    "}\n"
    "function askSearch() {\n"
    "  if (term) { search(null); return; }\n"
    "  var s = prompt('Search for (regular expression):', '');\n"
    "  if (s) { try { search(new RegExp(s)); } catch (e) { alert(e); } }\n"
    "}\n"
    "window.addEventListener('load', function () {\n"
    "  frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
    "  details = document.getElementById('details');\n"
    "  matchedText = document.getElementById('matched');\n"
    "  frames.forEach(function (g) {\n"
    "    g.addEventListener('click', function () { zoom(g); });\n"
    "    g.addEventListener('mouseover', function () { details.textContent = g.querySelector('title').textContent; });\n"
    "    g.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
    "  });\n"
    "  document.getElementById('unzoom').addEventListener('click', unzoom);\n"
    "  document.getElementById('search').addEventListener('click', askSearch);\n"
    "  window.addEventListener('keydown', function (e) {\n"
    "    if (e.key === 'Escape') unzoom();\n"
    "    if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); askSearch(); }\n"
    "  });\n"
    "});\n"
    "]]></script>\n";

static void write_script(cv_out *o)
{
    /* The constants are substituted here so the script and the C layout agree. */
    char w[16], m[16], c[16];
    snprintf(w, sizeof w, "%d", SVG_WIDTH);
    snprintf(m, sizeof m, "%d", SIDE_MARGIN);
    snprintf(c, sizeof c, "%.1f", CHAR_WIDTH);
    const char *s = svg_script;
    for (const char *p; (p = strpbrk(s, "WMC"));) {
        const char *rep = NULL;
        size_t len = 0;
        if (!strncmp(p, "WIDTH", 5)) { rep = w; len = 5; }
        else if (!strncmp(p, "MARGIN", 6)) { rep = m; len = 6; }
        else if (!strncmp(p, "CHARW", 5)) { rep = c; len = 5; }
        cv_put(o, s, (size_t)(p - s));
        if (rep) {
            cv_puts(o, rep);
            s = p + len;
        } else {
            cv_putc(o, *p);
            s = p + 1;
        }
    }
    cv_puts(o, s);
}

/* A frame to draw: its node's (or spilled stack's) function id and first frame (for
 * its name), depth, weight (its subtree's), where it starts, and where its next child
 * starts. */
struct frame_at {
    uint32_t function_id, first;
    uint32_t depth;
    uint64_t w, x0, next;
};
struct frames { struct frame_at *v; size_t n, cap; uint32_t max_depth; };

static struct frame_at *add_frame(struct frames *f)
{
    f->v = fr_xgrow(f->v, &f->cap, f->n + 1, sizeof *f->v, 256);
    return &f->v[f->n++];
}

/* A frame wide enough to draw, child of frame pf: it starts where its parent's previous
 * child ended (few, whatever the number of stacks). */
static void place_frame(struct frames *f, uint32_t pf, uint32_t function_id, uint32_t first, uint64_t w)
{
    struct frame_at *c = add_frame(f), *p = &f->v[pf];
    *c = (struct frame_at){function_id, first, p->depth + 1, w, p->next, p->next};
    p->next += w;
    if (c->depth > f->max_depth)
        f->max_depth = c->depth;
}

/* The frames of the tree in memory, in node order; *total: the root's weight. */
static void tree_frames(const cv_job *job, cv_stacks *st, struct frames *f, uint64_t *total)
{
    /* Subtree weights: parents have smaller indexes than their children, so one
     * backward sweep adds each node into its parent. Index st.n is the synthetic root
     * "all". 8 bytes a node, plus 4 for the frame index below. */
    uint64_t *subtree = malloc((st->n + 1) * sizeof *subtree);
    uint32_t *frame_of = malloc((st->n + 1) * sizeof *frame_of);
    if (!subtree || !frame_of) {
        fprintf(stderr, "flightrec convert: out of memory\n");
        exit(1);
    }
    subtree[st->n] = 0;
    for (size_t i = 0; i < st->n; i++)
        subtree[i] = cv_stack_weight(job, st, (uint32_t)i);
    for (size_t i = st->n; i-- > 0;) {
        uint32_t parent = fr_stack_agg_node(st->agg, (uint32_t)i)->parent;
        subtree[parent == FR_STACK_ROOT ? st->n : parent] += subtree[i];
    }
    *total = subtree[st->n] ? subtree[st->n] : 1;
    double px_per_unit = (double)(SVG_WIDTH - 2 * SIDE_MARGIN) / (double)*total;
    *add_frame(f) = (struct frame_at){0, 0, 0, *total, 0, 0};
    frame_of[st->n] = 0;
    for (size_t i = 0; i < st->n; i++) {
        const fr_stack_node *s = fr_stack_agg_node(st->agg, (uint32_t)i);
        uint32_t pf = frame_of[s->parent == FR_STACK_ROOT ? st->n : s->parent];
        frame_of[i] = UINT32_MAX;
        if (pf == UINT32_MAX || (double)subtree[i] * px_per_unit < MIN_FRAME_PX)
            continue;
        frame_of[i] = (uint32_t)f->n;
        uint32_t first = (uint32_t)i;   /* (the node's first frame: its process's) */
        while (fr_stack_agg_node(st->agg, first)->parent != FR_STACK_ROOT)
            first = fr_stack_agg_node(st->agg, first)->parent;
        place_frame(f, pf, s->function_id, fr_stack_agg_node(st->agg, first)->function_id, subtree[i]);
    }
    free(frame_of);
    free(subtree);
}

/* ---- a spilled tree: the same frames from the merged runs (stack_spill.h), which come
 * in path order (each stack right before the stacks it calls), read twice: once for the
 * total weight, which says how wide a frame must be to be drawn, then for each stack's
 * subtree weight, complete when the walk leaves it. The frames wide enough are then put
 * in the tree's node order and placed as above. Memory: the frames drawn, and the walk's
 * open stacks. */
struct spilled_frame {
    uint64_t order, parent;   /* the stack's place in the node order, its caller's (or NONE) */
    uint32_t function_id, first;
    uint64_t w;
};
#define NO_PARENT UINT64_MAX

struct spilled_walk {
    const cv_job *job;
    cv_stacks *st;
    uint64_t total;
    double px_per_unit;
    struct open_stack { uint64_t order, w; uint32_t function_id, first; } *open;
    size_t n_open, cap_open;
    struct spilled_frame *kept;
    size_t n_kept, cap_kept;
};

static void add_weight(const fr_spilled_stack *s, void *ctx)
{
    struct spilled_walk *w = ctx;
    w->total += cv_spilled_weight(w->job, w->st, s->path, s->calls, s->self_ticks);
}

/* The walk leaves the open stack at depth n_open - 1: its subtree weight is complete. */
static void close_open(struct spilled_walk *w)
{
    struct open_stack *o = &w->open[--w->n_open];
    if (w->n_open)
        w->open[w->n_open - 1].w += o->w;
    if ((double)o->w * w->px_per_unit < MIN_FRAME_PX)
        return;
    w->kept = fr_xgrow(w->kept, &w->cap_kept, w->n_kept + 1, sizeof *w->kept, 256);
    w->kept[w->n_kept++] = (struct spilled_frame){
        o->order, w->n_open ? w->open[w->n_open - 1].order : NO_PARENT, o->function_id, o->first, o->w};
}

static void add_subtree(const fr_spilled_stack *s, void *ctx)
{
    struct spilled_walk *w = ctx;
    while (w->n_open >= s->len)
        close_open(w);
    w->open = fr_xgrow(w->open, &w->cap_open, w->n_open + 1, sizeof *w->open, 64);
    w->open[w->n_open++] = (struct open_stack){
        s->order, cv_spilled_weight(w->job, w->st, s->path, s->calls, s->self_ticks),
        s->path[s->len - 1], s->path[0]};
}

static int by_order(const void *a, const void *b)
{
    uint64_t x = ((const struct spilled_frame *)a)->order, y = ((const struct spilled_frame *)b)->order;
    return (x > y) - (x < y);
}

static void spilled_frames(const cv_job *job, cv_stacks *st, struct frames *f, uint64_t *total)
{
    struct spilled_walk w = {job, st, 0, 0, NULL, 0, 0, NULL, 0, 0};
    fr_stack_spill_merge(st->spill, add_weight, &w);
    *total = w.total ? w.total : 1;
    w.px_per_unit = (double)(SVG_WIDTH - 2 * SIDE_MARGIN) / (double)*total;
    fr_stack_spill_merge(st->spill, add_subtree, &w);
    while (w.n_open)
        close_open(&w);
    free(w.open);
    if (w.n_kept)
        qsort(w.kept, w.n_kept, sizeof *w.kept, by_order);
    /* frame_of: each kept stack's frame, UINT32_MAX when not drawn (its caller was not) */
    uint32_t *frame_of = malloc((w.n_kept ? w.n_kept : 1) * sizeof *frame_of);
    if (!frame_of) {
        fprintf(stderr, "flightrec convert: out of memory\n");
        exit(1);
    }
    *add_frame(f) = (struct frame_at){0, 0, 0, *total, 0, 0};
    for (size_t k = 0; k < w.n_kept; k++) {
        const struct spilled_frame *s = &w.kept[k];
        uint32_t pf = 0;
        frame_of[k] = UINT32_MAX;
        if (s->parent != NO_PARENT) {
            struct spilled_frame key = {.order = s->parent};
            const struct spilled_frame *p = bsearch(&key, w.kept, k, sizeof key, by_order);
            pf = p ? frame_of[p - w.kept] : UINT32_MAX;
        }
        if (pf == UINT32_MAX)
            continue;
        frame_of[k] = (uint32_t)f->n;
        place_frame(f, pf, s->function_id, s->first, s->w);
    }
    free(frame_of);
    free(w.kept);
}

int cv_convert_svg(cv_job *job)
{
    cv_stacks st;
    int rc, orc = cv_stacks_build_for_output(job, &st, plain_name, &rc);
    if (orc)
        return orc;
    struct frames fr = {0};
    uint64_t total;
    if (st.spill)
        spilled_frames(job, &st, &fr, &total);
    else
        tree_frames(job, &st, &fr, &total);
    uint32_t max_depth = fr.max_depth;

    cv_out o;
    cv_out_init(&o, job->out);
    int height = TOP_MARGIN + (int)(max_depth + 1) * FRAME_HEIGHT + BOTTOM_MARGIN;
    struct svg_layout layout = {max_depth, height > FIRST_SCREEN_PX};
    /* the hover details and the search result: under the frames, or under the title when
     * the frames go down from the top */
    int details_y = layout.icicle ? TOP_MARGIN - 5 : height - 12;
    char head[1024];
    snprintf(head, sizeof head,
             "<?xml version=\"1.0\" standalone=\"no\"?>\n"
             "<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
             "xmlns=\"http://www.w3.org/2000/svg\">\n"
             "<style type=\"text/css\">\n"
             "text { font-family: monospace; font-size: 12px; fill: rgb(0,0,0); }\n"
             "g.f { cursor: pointer; } g.f text { pointer-events: none; }\n"
             "g.f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
             "g.parent rect { opacity: 0.5; }\n"
             "#title { font-size: 17px; text-anchor: middle; }\n"
             "#unzoom, #search { cursor: pointer; fill: rgb(0,0,160); }\n"
             "</style>\n"
             "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"rgb(250,250,240)\"/>\n",
             SVG_WIDTH, height, SVG_WIDTH, height);
    cv_puts(&o, head);
    write_script(&o);
    snprintf(head, sizeof head, "<text id=\"title\" x=\"%d\" y=\"24\">", SVG_WIDTH / 2);
    cv_puts(&o, head);
    if (job->title)
        xml_text(&o, job->title, strlen(job->title));
    else {
        CV_LIT(&o, "Flame graph of ");
        xml_text(&o, job->in_path, strlen(job->in_path));
        if (job->n_inputs > 1) {
            char more[64];
            snprintf(more, sizeof more, " and %zu more trace%s", job->n_inputs - 1,
                     job->n_inputs > 2 ? "s" : "");
            cv_puts(&o, more);
        }
        CV_LIT(&o, job->weight == CV_WEIGHT_CALLS ? " (calls)" : " (time)");
    }
    CV_LIT(&o, "</text>\n");
    snprintf(head, sizeof head,
             "<text id=\"unzoom\" x=\"%d\" y=\"24\" style=\"display:none\">Reset zoom</text>\n"
             "<text id=\"search\" x=\"%d\" y=\"24\" text-anchor=\"end\">Search</text>\n"
             "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"> </text>\n"
             "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n",
             SIDE_MARGIN, SVG_WIDTH - SIDE_MARGIN, SVG_WIDTH - SIDE_MARGIN, details_y,
             SIDE_MARGIN, details_y);
    cv_puts(&o, head);

    frame(&o, "all", 0, total, 0, total, &layout, job->weight);
    for (size_t k = 1; k < fr.n; k++) {
        const struct frame_at *f = &fr.v[k];
        frame(&o, cv_stack_frame_name_of(&st, &f->first, f->function_id), f->x0,
              f->w, f->depth, total, &layout, job->weight);
    }
    CV_LIT(&o, "</svg>\n");
    int wrc = cv_out_finish(&o);
    if (wrc) {
        fprintf(stderr, "flightrec convert: writing %s: %s\n", job->out_path, strerror(-wrc));
        rc = FR_EXIT_BAD_INPUT;
    }
    free(fr.v);
    cv_stacks_free(&st);
    return rc;
}
