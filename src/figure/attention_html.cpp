// The offline attention page (tfx/figure/attention_html.hpp): HTML skeleton, style, the weights
// as JSON in a <script type="application/json">, and the script that draws the head view (SVG)
// and the model view (one canvas per layer × head).
#include "tfx/figure/attention_html.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

// JSON that can stand inside <script>: '<', '>' and '&' only occur inside JSON strings, where
// \u003c, \u003e and \u0026 mean the same characters; invalid UTF-8 becomes U+FFFD.
std::string script_safe_json(const nlohmann::json& j) {
  const std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + 64);
  for (char c : text) {
    if (c == '<')
      out += "\\u003c";
    else if (c == '>')
      out += "\\u003e";
    else if (c == '&')
      out += "\\u0026";
    else
      out += c;
  }
  return out;
}

// A weight in [0, 1] with 4 decimals, trailing zeros dropped: 0, 1, 0.25, 0.1234.
void append_weight(std::string& out, float w) {
  long k = std::isfinite(w) ? std::lround(static_cast<double>(w) * 10000.0) : 0;
  if (k <= 0) {
    out += '0';
    return;
  }
  if (k >= 10000) {
    out += '1';
    return;
  }
  char digits[5];
  for (int i = 3; i >= 0; --i) {
    digits[i] = static_cast<char>('0' + k % 10);
    k /= 10;
  }
  int n = 4;
  while (n > 1 && digits[n - 1] == '0') --n;
  out += "0.";
  out.append(digits, static_cast<std::size_t>(n));
}

// The text of the page after the JSON data: style and script are fixed, the data varies.
constexpr const char* kStyle = R"CSS(
:root { color-scheme: light; --ink: #1b1b1f; --mute: #5b5b66; --line: #d8d8de; --hi: #fff3b0; }
* { box-sizing: border-box; }
body { font: 15px/1.45 "DejaVu Sans", "Noto Sans", "NanumGothic", system-ui, sans-serif; color: var(--ink);
       margin: 1.2em auto; max-width: 1100px; padding: 0 1em; }
h1 { font-size: 1.35em; margin: 0 0 .2em; }
h2 { font-size: 1.1em; margin: 1.4em 0 .3em; border-bottom: 1px solid var(--line); padding-bottom: .2em; }
.sub, .hint, footer { color: var(--mute); }
.hint { font-size: .9em; margin: .2em 0 .6em; }
.controls { display: flex; flex-wrap: wrap; gap: .5em 1em; align-items: center; margin: .4em 0; }
select { font: inherit; padding: .1em .3em; }
.chip { font: inherit; font-size: .85em; border: 1px solid var(--line); background: #fff; border-radius: 1em;
        padding: .05em .7em; cursor: pointer; opacity: .45; }
.chip.on { opacity: 1; border-color: currentColor; font-weight: bold; }
.chip .dot { display: inline-block; width: .75em; height: .75em; border-radius: 50%; margin-right: .35em; vertical-align: -.05em; }
#hv { display: block; max-width: 100%; height: auto; }
#hv text { font-size: 14px; cursor: default; fill: var(--ink); }
#hv rect.hl { fill: var(--hi); }
#hv text.side { font-size: 12px; fill: var(--mute); }
#info { min-height: 1.5em; font-size: .92em; }
#grid { display: grid; gap: 6px; align-items: center; justify-items: center; justify-content: start; overflow-x: auto; }
#grid .lab { font-size: .8em; color: var(--mute); }
canvas.thumb { width: 72px; height: 72px; image-rendering: pixelated; border: 2px solid transparent; cursor: pointer; }
canvas.thumb.sel { border-color: #d62728; }
footer { font-size: .8em; margin-top: 2em; }
)CSS";

constexpr const char* kScript = R"JS(
(function () {
'use strict';
const D = JSON.parse(document.getElementById('tfx-data').textContent);
const L = D.w.length, H = D.heads.length, T = D.queries.length, S = D.keys.length;
const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f',
                '#bcbd22', '#17becf', '#393b79', '#ad494a', '#637939', '#8c6d31', '#843c39', '#7b4173'];
const color = h => COLORS[h % COLORS.length];
const MIN_SHOWN = 0.005;  // lines fainter than this are not drawn
const state = { layer: D.layer, heads: new Set(D.head === null ? [...Array(H).keys()] : [D.head]), hover: null };
const NS = 'http://www.w3.org/2000/svg';
const svg = document.getElementById('hv');
const ROW = 24, TOP = 30, XL = 230, XR = 470, WIDTH = 700;
const y = i => TOP + ROW * i + ROW / 2;
const weight = (l, h, i, j) => D.w[l][h][i * S + j];

function el(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

// ---- head view: tokens once, lines on every change
const n = Math.max(T, S);
svg.setAttribute('viewBox', `0 0 ${WIDTH} ${TOP + n * ROW + 8}`);
svg.setAttribute('width', WIDTH);
svg.setAttribute('height', TOP + n * ROW + 8);
const lines = el('g', { id: 'lines' }, svg);
const qside = el('text', { x: XL - 10, y: 16, 'text-anchor': 'end', class: 'side' }, svg);
qside.textContent = D.query_side;
const kside = el('text', { x: XR + 10, y: 16, 'text-anchor': 'start', class: 'side' }, svg);
kside.textContent = D.key_side;
const marks = { q: [], k: [] };
function token(side, i, label) {
  const left = side === 'q';
  const g = el('g', {}, svg);
  const r = el('rect', { x: left ? 8 : XR + 4, y: y(i) - ROW / 2 + 2, width: XL - 12 - (left ? 8 : 0) + (left ? 0 : 0), height: ROW - 4, rx: 3, fill: 'transparent' }, g);
  if (!left) r.setAttribute('width', WIDTH - XR - 8);
  const t = el('text', { x: left ? XL - 10 : XR + 10, y: y(i) + 5, 'text-anchor': left ? 'end' : 'start', class: 'tok ' + side, 'data-i': i }, g);
  t.textContent = label;
  g.addEventListener('mouseenter', () => { state.hover = { side, i }; drawLines(); });
  g.addEventListener('mouseleave', () => { state.hover = null; drawLines(); });
  marks[side].push({ g, r, t });
}
D.queries.forEach((s, i) => token('q', i, s));
D.keys.forEach((s, j) => token('k', j, s));

function drawLines() {
  while (lines.firstChild) lines.removeChild(lines.firstChild);
  const hs = [...state.heads].sort((a, b) => a - b);
  const hv = state.hover;
  for (const side of ['q', 'k'])
    marks[side].forEach((m, i) => m.r.setAttribute('class', hv && hv.side === side && hv.i === i ? 'hl' : ''));
  for (const h of hs)
    for (let i = 0; i < T; i++) {
      if (hv && hv.side === 'q' && hv.i !== i) continue;
      for (let j = 0; j < S; j++) {
        if (hv && hv.side === 'k' && hv.i !== j) continue;
        const w = weight(state.layer, h, i, j);
        if (!(w >= MIN_SHOWN)) continue;
        el('line', { x1: XL, y1: y(i), x2: XR, y2: y(j), stroke: color(h), 'stroke-width': hv ? 3 : 2,
                     'stroke-opacity': w, 'data-q': i, 'data-k': j, 'data-h': h }, lines);
      }
    }
  info();
}

function info() {
  const box = document.getElementById('info');
  const hv = state.hover;
  const hs = [...state.heads].sort((a, b) => a - b);
  if (!hv || hs.length === 0) {
    box.textContent = `${D.layers[state.layer]}, ${hs.length === H ? 'all heads' : hs.length === 1 ? 'head ' + D.heads[hs[0]] : 'heads ' + hs.map(h => D.heads[h]).join(', ')}`;
    return;
  }
  const parts = [];
  for (const h of hs.slice(0, 4)) {
    const list = [];
    if (hv.side === 'q') for (let j = 0; j < S; j++) list.push([weight(state.layer, h, hv.i, j), D.keys[j]]);
    else for (let i = 0; i < T; i++) list.push([weight(state.layer, h, i, hv.i), D.queries[i]]);
    list.sort((a, b) => b[0] - a[0]);
    parts.push(`head ${D.heads[h]} → ` + list.slice(0, 3).map(([w, s]) => `${s} ${w.toFixed(3)}`).join(', '));
  }
  const who = hv.side === 'q' ? D.queries[hv.i] : D.keys[hv.i];
  box.textContent = (hv.side === 'q' ? `${who} (query ${hv.i}) attends most to: ` : `${who} (key ${hv.i}) is attended most by: `) +
    parts.join('; ') + (hs.length > 4 ? ' …' : '');
}

// ---- controls: layer and heads
const select = document.getElementById('layer');
D.layers.forEach((name, l) => {
  const o = document.createElement('option');
  o.value = String(l);
  o.textContent = name;
  select.appendChild(o);
});
select.value = String(state.layer);
select.addEventListener('change', () => { state.layer = Number(select.value); update(); });
const chips = document.getElementById('chips');
const chipOf = [];
function chip(label, onclick, dot) {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'chip';
  if (dot) {
    const s = document.createElement('span');
    s.className = 'dot';
    s.style.background = dot;
    b.appendChild(s);
  }
  b.appendChild(document.createTextNode(label));
  b.addEventListener('click', onclick);
  chips.appendChild(b);
  return b;
}
D.heads.forEach((name, h) => {
  const b = chip('head ' + name, () => {
    if (state.heads.has(h) && state.heads.size > 1) state.heads.delete(h); else state.heads.add(h);
    update();
  }, color(h));
  b.style.color = color(h);
  b.title = 'click: show or hide this head; double-click: only this head';
  b.addEventListener('dblclick', () => { state.heads = new Set([h]); update(); });
  chipOf.push(b);
});
const allChip = H > 1 ? chip('all heads', () => { state.heads = new Set([...Array(H).keys()]); update(); }) : null;

// ---- model view: one canvas per layer × head, viridis on [0, 1] as the PNG's model view
const VIRIDIS = [[68, 1, 84], [71, 45, 123], [59, 82, 139], [44, 114, 142], [33, 145, 140], [40, 174, 128], [94, 201, 98], [173, 220, 48], [253, 231, 37]];
function viridis(t) {
  t = Math.min(1, Math.max(0, t)) * (VIRIDIS.length - 1);
  const k = Math.min(VIRIDIS.length - 2, Math.floor(t)), f = t - k;
  return VIRIDIS[k].map((c, i) => Math.round(c + (VIRIDIS[k + 1][i] - c) * f));
}
const grid = document.getElementById('grid');
grid.style.gridTemplateColumns = `auto repeat(${H}, auto)`;
const thumbs = [];
grid.appendChild(document.createElement('span'));
D.heads.forEach(name => { const s = document.createElement('span'); s.className = 'lab'; s.textContent = 'H' + name; grid.appendChild(s); });
D.layers.forEach((name, l) => {
  const s = document.createElement('span');
  s.className = 'lab';
  s.textContent = name;
  grid.appendChild(s);
  thumbs.push([]);
  D.heads.forEach((hname, h) => {
    const c = document.createElement('canvas');
    c.width = S;
    c.height = T;
    c.className = 'thumb';
    c.title = `${name}, head ${hname}: click to open in the head view`;
    c.dataset.l = l;
    c.dataset.h = h;
    const ctx = c.getContext('2d');
    const img = ctx.createImageData(S, T);
    for (let i = 0; i < T; i++)
      for (let j = 0; j < S; j++) {
        const [r, g, b] = viridis(weight(l, h, i, j));
        const p = 4 * (i * S + j);
        img.data[p] = r; img.data[p + 1] = g; img.data[p + 2] = b; img.data[p + 3] = 255;
      }
    ctx.putImageData(img, 0, 0);
    c.addEventListener('click', () => {
      state.layer = l;
      state.heads = new Set([h]);
      update();
      if (location.hash !== '#selftest') document.getElementById('headview').scrollIntoView({ behavior: 'smooth' });
    });
    grid.appendChild(c);
    thumbs[l].push(c);
  });
});

function update() {
  select.value = String(state.layer);
  chipOf.forEach((b, h) => b.classList.toggle('on', state.heads.has(h)));
  if (allChip) allChip.classList.toggle('on', state.heads.size === H);
  thumbs.forEach((row, l) => row.forEach((c, h) => c.classList.toggle('sel', l === state.layer && state.heads.has(h))));
  drawLines();
}
update();

// ---- #selftest: hover, pick and click as a user would, and report what was drawn
function selftest() {
  const out = { layers: L, heads: H, queries: T, keys: S };
  const drawn = () => [...lines.querySelectorAll('line')].map(e => [Number(e.dataset.h), Number(e.dataset.q), Number(e.dataset.k), Number(e.getAttribute('stroke-opacity'))]);
  out.start = { layer: state.layer, heads: [...state.heads].sort((a, b) => a - b), lines: drawn() };
  out.token_text = { q: [...svg.querySelectorAll('text.q')].map(e => e.textContent), k: [...svg.querySelectorAll('text.k')].map(e => e.textContent) };
  const last = marks.q[T - 1].g;
  last.dispatchEvent(new MouseEvent('mouseenter'));
  out.hover_query = { index: T - 1, lines: drawn(), info: document.getElementById('info').textContent,
                      highlighted: marks.q[T - 1].r.getAttribute('class') === 'hl' };
  last.dispatchEvent(new MouseEvent('mouseleave'));
  marks.k[0].g.dispatchEvent(new MouseEvent('mouseenter'));
  out.hover_key = { index: 0, lines: drawn() };
  marks.k[0].g.dispatchEvent(new MouseEvent('mouseleave'));
  out.after_leave = drawn().length;
  select.value = String(L - 1);
  select.dispatchEvent(new Event('change'));
  out.pick_layer = { layer: state.layer, lines: drawn() };
  chipOf[H - 1].dispatchEvent(new MouseEvent('dblclick'));
  out.pick_head = { heads: [...state.heads], lines: drawn() };
  // the model view: each thumbnail's pixels, as the brightest key of every query row
  out.thumbnails = thumbs.flat().length;
  const c = thumbs[0][0], px = c.getContext('2d').getImageData(0, 0, S, T).data;
  out.thumb_argmax = [];
  for (let i = 0; i < T; i++) {
    let best = 0, bestLum = -1;
    for (let j = 0; j < S; j++) {
      const p = 4 * (i * S + j), lum = 0.2126 * px[p] + 0.7152 * px[p + 1] + 0.0722 * px[p + 2];
      if (lum > bestLum + 1e-9) { bestLum = lum; best = j; }
    }
    out.thumb_argmax.push(best);
  }
  thumbs[0][0].click();
  out.click_thumb = { layer: state.layer, heads: [...state.heads], selected: thumbs[0][0].classList.contains('sel') };
  out.errors = window.tfxErrors.slice();
  const pre = document.getElementById('selftest');
  pre.textContent = JSON.stringify(out);
  pre.hidden = false;
}
// #layer=L&head=H[,H…]&query=I (or key=J): a link that opens the page on one layer, heads and token
if (location.hash.length > 1 && location.hash !== '#selftest') {
  const a = new URLSearchParams(location.hash.slice(1));
  const num = (v, n) => { const k = Number(v); return Number.isInteger(k) && k >= 0 && k < n ? k : null; };
  const l = num(a.get('layer'), L);
  if (l !== null) state.layer = l;
  const hs = (a.get('head') || '').split(',').map(v => num(v, H)).filter(v => v !== null);
  if (hs.length) state.heads = new Set(hs);
  const q = num(a.get('query'), T), k = num(a.get('key'), S);
  if (q !== null) state.hover = { side: 'q', i: q };
  else if (k !== null) state.hover = { side: 'k', i: k };
  update();
}
if (location.hash === '#selftest') {
  try { selftest(); } catch (e) {
    const pre = document.getElementById('selftest');
    pre.textContent = JSON.stringify({ errors: window.tfxErrors.concat(['selftest: ' + e]) });
    pre.hidden = false;
  }
}
})();
)JS";

}  // namespace

std::string attention_html(const AttentionPage& p) {
  const std::size_t L = p.weights.size(), H = p.head_names.size(), T = p.queries.size(), S = p.keys.size();
  if (L == 0 || H == 0 || T == 0 || S == 0 || p.layer_names.size() != L)
    throw usage_error(N_("html: nothing to draw (no layers, heads or tokens)"), {"html"});
  if (L * H * T * S > kMaxHtmlWeights)
    throw usage_error(fmt::format(N_("html: {} layers × {} heads × {} × {} = {} weights are too many for one page (at most {}); "
                                  "choose layer or head, or a shorter text"),
                                  L, H, T, S, L * H * T * S, kMaxHtmlWeights),
                      {"html", "layer", "head"});
  for (const Tensor& w : p.weights)
    if (w.rank() != 3 || w.dim(0) != H || w.dim(1) != T || w.dim(2) != S)
      throw usage_error(fmt::format(N_("html: weights of shape ({}, {}, {}) expected per layer"), H, T, S), {"html"});
  nlohmann::json meta = {{"queries", p.queries},
                         {"keys", p.keys},
                         {"layers", p.layer_names},
                         {"heads", p.head_names},
                         {"layer", p.first_layer < L ? p.first_layer : 0},
                         {"head", p.first_head && *p.first_head < H ? nlohmann::json(*p.first_head) : nlohmann::json(nullptr)},
                         {"query_side", "query (attends)"},
                         {"key_side", "key (attended to)"}};
  std::string data = script_safe_json(meta);
  data.pop_back();  // the closing brace: the weights follow
  data += ",\"w\":[";
  data.reserve(data.size() + L * H * T * S * 7);
  for (std::size_t l = 0; l < L; ++l) {
    data += l ? ",[" : "[";
    const float* w = p.weights[l].data();
    for (std::size_t h = 0; h < H; ++h) {
      data += h ? ",[" : "[";
      for (std::size_t k = 0; k < T * S; ++k) {
        if (k) data += ',';
        append_weight(data, w[h * T * S + k]);
      }
      data += ']';
    }
    data += ']';
  }
  data += "]}";

  // the visible texts go through the same replacement of invalid UTF-8 as the data
  const auto text = [](const std::string& s) { return markup_escape(s); };
  std::string out;
  out.reserve(data.size() + 20000);
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n";
  out += fmt::format("<title>{}</title>\n<style>{}</style>\n", text(p.title), kStyle);
  out += "<script>window.tfxErrors = []; window.addEventListener('error', e => window.tfxErrors.push(String(e.message)));</script>\n";
  out += "</head>\n<body>\n";
  out += fmt::format("<h1>{}</h1>\n", text(p.title));
  if (!p.subtitle.empty()) out += fmt::format("<p class=\"sub\">{}</p>\n", text(p.subtitle));
  out += "<section id=\"headview\">\n<h2>Head view</h2>\n";
  out += "<div class=\"controls\"><label>Layer <select id=\"layer\"></select></label><span id=\"chips\"></span></div>\n";
  out += "<p class=\"hint\">Each line joins a query (left) to a key (right); its opacity is the attention weight, its color the head. "
         "Hover a token to see only its lines; click a head to show or hide it, double-click to see it alone.</p>\n";
  out += "<svg id=\"hv\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"attention lines between the tokens\"></svg>\n";
  out += "<p id=\"info\"></p>\n</section>\n";
  out += "<section id=\"modelview\">\n<h2>Model view</h2>\n";
  out += "<p class=\"hint\">Every layer (rows) × head (columns) as a heatmap: queries down, keys across, "
         "dark purple 0 → yellow 1 (viridis). Click one to open it in the head view.</p>\n";
  out += "<div id=\"grid\"></div>\n</section>\n";
  if (!p.footer.empty()) out += fmt::format("<footer>{}</footer>\n", text(p.footer));
  out += "<pre id=\"selftest\" hidden></pre>\n";
  out += "<script type=\"application/json\" id=\"tfx-data\">";
  out += data;
  out += "</script>\n<script>";
  out += kScript;
  out += "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace tfx
