// convert_svg_script.js SVG PATTERN - runs the flame graph's inline script against a small
// stand-in for the DOM (the frames parsed from the file) and checks click-to-zoom, reset
// and search: the zoomed frame fills the width, its callees stay inside the view, frames
// elsewhere are hidden, reset shows all again, a search highlights the matching frames.
'use strict';
const fs = require('fs');
const [svgPath, pattern] = process.argv.slice(2);
const svg = fs.readFileSync(svgPath, 'utf8');
const script = svg.substring(svg.indexOf('<![CDATA[') + 9, svg.indexOf(']]>'));
let failures = 0;
function check(cond, what) { if (!cond) { failures++; console.log('FAIL:', what); } }
function el(attrs) {
  return { attrs: Object.assign({}, attrs), textContent: '', style: {},
           getAttribute(k) { return this.attrs[k]; }, setAttribute(k, v) { this.attrs[k] = String(v); },
           hasAttribute(k) { return k in this.attrs; },
           addEventListener(t, f) { this.on = this.on || {}; this.on[t] = f; } };
}
const unescape = s => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"')
                       .replace(/&apos;/g, "'").replace(/&amp;/g, '&');
const frames = [];
const re = /<g class="f" fx="(\d+)" fw="(\d+)" fd="(\d+)"><title>([^<]*)<\/title><rect x="([^"]*)" y="([^"]*)" width="([^"]*)" height="15" rx="2" fill="([^"]*)"\/><text x="([^"]*)" y="([^"]*)">([^<]*)<\/text><\/g>/g;
for (let m; (m = re.exec(svg));) {
  const g = el({fx: m[1], fw: m[2], fd: m[3]});
  const parts = {title: el({}), rect: el({x: m[5], y: m[6], width: m[7], fill: m[8]}), text: el({x: m[9], y: m[10]})};
  parts.title.textContent = unescape(m[4]);
  parts.text.textContent = unescape(m[11]);
  const cls = new Set();
  g.classList = { add: c => cls.add(c), remove: c => cls.delete(c) };
  g.querySelector = s => parts[s];
  frames.push(g);
}
check(frames.length > 2, 'frames parsed from the file: ' + frames.length);
const ids = {};
for (const i of ['details', 'matched', 'unzoom', 'search']) ids[i] = el({});
const onWindow = {};
global.window = { addEventListener: (t, f) => { onWindow[t] = f; } };
global.document = { querySelectorAll: () => frames, getElementById: i => ids[i] };
global.prompt = () => pattern;
global.alert = m => check(false, 'alert: ' + m);
eval(script);
onWindow.load();

const visible = () => frames.filter(g => g.style.display !== 'none');
const box = g => { const r = g.querySelector('rect'); return [+r.attrs.x, +r.attrs.width]; };
const target = frames.filter(g => g.attrs.fd !== '0').sort((a, b) => a.attrs.fw - b.attrs.fw)[0];
target.on.click();
const [tx, tw] = box(target);
check(Math.abs(tx - 10) < 0.05 && Math.abs(tw - 1180) < 0.05, 'zoomed frame fills the width: ' + [tx, tw]);
for (const g of visible()) {
  const [x, w] = box(g);
  check(x >= 9.95 && x + w <= 1190.05, 'visible frame inside the view after zoom: ' + [x, w]);
}
check(visible().length < frames.length, 'frames beside the zoomed one are hidden');
check(ids.unzoom.style.display === '', 'reset zoom shown');
ids.unzoom.on.click();
check(visible().length === frames.length, 'reset shows every frame');
const [ax, aw] = box(frames[0]);
check(Math.abs(ax - 10) < 0.05 && Math.abs(aw - 1180) < 0.05, 'root fills the width after reset');
ids.search.on.click();
const lit = frames.filter(g => g.querySelector('rect').attrs.fill === 'rgb(230,0,230)');
const want = frames.filter(g => new RegExp(pattern).test(g.querySelector('title').textContent.replace(/ \([^(]*$/, '')));
check(lit.length === want.length && lit.length > 0, 'search highlights ' + lit.length + ' of ' + want.length);
check(/^Matched: \d+\.\d\d%$/.test(ids.matched.textContent), 'matched share shown: ' + ids.matched.textContent);
target.on.mouseover();
check(ids.details.textContent === target.querySelector('title').textContent, 'hover shows name, time, percent');
console.log(failures ? failures + ' failures' : 'flame graph script: zoom, reset, search, hover work');
process.exit(failures ? 1 : 0);
