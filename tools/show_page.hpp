// The page `vmc show` writes (tools/show.cpp fills in @VMC_TITLE@ and @VMC_DATA@, the runs
// as JSON). Everything is inline and the Content-Security-Policy forbids fetching anything,
// so the page works offline from file:// in any current browser.
//
// What it draws from each run's trace: the network (tools/show_layout.cpp's picture), each
// message as a mark moving along its route between its start and end, each link thick while
// a message holds it, each message that waits for a link or port (from start - waited to
// start) as a dashed line along its route from its sender, with the links it wants that
// others hold in red, each combine as a ring round its node, and under each node what it
// holds: the items that reached it (broadcast, scatter) or whose inputs reached it, directly
// or through others (every other operation). On a hypercube the links of the dimensions in
// use (held or wanted) are drawn over the others, which fade, and each node's drawing stays
// inside the box the layout gives it.
//
// Hooks for tests and screenshots, in the address's fragment: #end steps from the start to
// the end one event at a time (as the step button does); #at=wait shows the first moment
// a message waits; #at=F (0 <= F <= 1) the moment F of the way; #at=1.2ms (a virtual time
// with its unit: ps, ns, us, ms, s) that moment; #at=end the end. After
// each, <pre id="vmc-status"> holds what the page shows as JSON: nodes and links drawn,
// messages seen, the time, the dimensions in use and whether their links are on top, the
// rendered boxes of each node's circle, number, bits and bar, and every error or console
// message the page raised.
#pragma once

namespace vmc::cli {

inline constexpr const char* kShowPage = R"vmcpage(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
      content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>@VMC_TITLE@</title>
<script>
"use strict";
window.vmcErrors = [];
window.addEventListener("error", (e) => vmcErrors.push("error: " + e.message));
window.addEventListener("unhandledrejection", (e) => vmcErrors.push("rejection: " + e.reason));
document.addEventListener("securitypolicyviolation",
                          (e) => vmcErrors.push("blocked: " + e.blockedURI));
for (const level of ["error", "warn", "log", "info"]) {
  const original = console[level];
  console[level] = (...args) => {
    vmcErrors.push(level + ": " + args.join(" "));
    original.apply(console, args);
  };
}
</script>
<style>
body { font: 14px/1.35 system-ui, sans-serif; margin: 0; color: #222; background: #fafafa; }
header { position: sticky; top: 0; background: #fff; border-bottom: 1px solid #ccc;
         padding: 8px 14px; z-index: 2; }
h1 { font-size: 17px; margin: 0 0 6px 0; }
.controls { display: flex; align-items: center; gap: 6px; flex-wrap: wrap; }
.controls button { font-size: 14px; min-width: 34px; padding: 2px 8px; }
#slider { flex: 1 1 300px; }
#clock { font: 15px/1 ui-monospace, monospace; min-width: 190px; }
#panels { display: flex; flex-wrap: wrap; gap: 12px; padding: 10px 14px; }
.panel { background: #fff; border: 1px solid #ccc; border-radius: 6px; padding: 8px 10px;
         flex: 1 1 520px; min-width: 420px; }
.panel h2 { font-size: 15px; margin: 0 0 4px 0; }
.panel .sub { color: #555; font-size: 13px; }
.panel .counts { font: 13px ui-monospace, monospace; margin: 4px 0; white-space: pre-wrap; }
.bar { height: 6px; background: #eee; border-radius: 3px; margin: 4px 0; }
.bar div { height: 6px; background: #4a7bd0; border-radius: 3px; width: 0; }
svg.net { width: 100%; height: auto; display: block; }
.link { fill: none; stroke-linecap: round; }
.link.faded { opacity: 0.18; }
.link.busy { stroke: #0b3d91 !important; }
.link.blocked { stroke: #e41a1c !important; }
.link.down { stroke: #000 !important; stroke-dasharray: 2 5; opacity: 1 !important; }
.node { fill: #fff; stroke: #333; stroke-width: 1.5; }
.node.combining { stroke: #2a9d3a; stroke-width: 4; }
.node.failed { fill: #aaa; stroke: #000; stroke-dasharray: 3 2; }
.switch { fill: #ddd; stroke: #666; stroke-width: 1.2; }
.label { font: 12px ui-monospace, monospace; text-anchor: middle; dominant-baseline: central;
         pointer-events: none; }
.bits { font: 9px ui-monospace, monospace; fill: #666; text-anchor: middle; }
.msg { fill: #f4b400; stroke: #6b4f00; stroke-width: 1.2; }
.wait { fill: none; stroke: #ff7f0e; stroke-width: 2.5; stroke-dasharray: 5 4; }
.waitmark { fill: #fff3e0; stroke: #ff7f0e; stroke-width: 2.5; }
.hold-bg { fill: #eee; }
.hold-on { fill: #4a7bd0; }
#legend { padding: 4px 14px 20px 14px; }
#legend h3 { font-size: 14px; margin: 10px 0 4px 0; }
#legend pre { background: #f3f3f3; padding: 6px 8px; white-space: pre-wrap; font-size: 12px; }
.key { display: inline-block; width: 26px; height: 0; border-top: 5px solid; vertical-align: middle;
       margin: 0 4px 0 10px; }
.formula { font: 12px ui-monospace, monospace; color: #333; white-space: pre-wrap;
           background: #f6f6f0; padding: 4px 6px; margin: 4px 0; }
</style>
</head>
<body>
<header>
  <h1 id="title"></h1>
  <div class="controls">
    <button id="first" title="to the start (Home)">|&lt;</button>
    <button id="back" title="back to the previous event (left arrow)">&lt;</button>
    <button id="play" title="play or pause (space)">play</button>
    <button id="step" title="on to the next event (right arrow)">&gt;</button>
    <button id="last" title="to the end (End)">&gt;|</button>
    <label>speed <select id="speed">
      <option value="0.125">1/8</option><option value="0.25">1/4</option>
      <option value="0.5">1/2</option><option value="1" selected>1</option>
      <option value="2">2</option><option value="4">4</option>
    </select></label>
    <input id="slider" type="range" min="0" max="100000" value="0" aria-label="model time">
    <span id="clock"></span>
  </div>
</header>
<main id="panels"></main>
<section id="legend"></section>
<pre id="vmc-status" hidden></pre>
<script id="vmc-data" type="application/json">@VMC_DATA@</script>
<script>
"use strict";
const DATA = JSON.parse(document.getElementById("vmc-data").textContent);
const SVG = "http://www.w3.org/2000/svg";
const DIM_COLOURS = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                     "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"];

function make(tag, attrs, parent, ns) {
  const e = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// Picoseconds as the vmc command line prints durations.
function fmt(ps) {
  const s = ps / 1e12, a = Math.abs(s);
  if (a === 0) return "0 s";
  if (a < 1e-6) return (s * 1e9).toPrecision(4).replace(/\.?0+$/, "") + " ns";
  if (a < 1e-3) return (s * 1e6).toPrecision(4).replace(/\.?0+$/, "") + " us";
  if (a < 1) return (s * 1e3).toPrecision(4).replace(/\.?0+$/, "") + " ms";
  return s.toPrecision(4).replace(/\.?0+$/, "") + " s";
}

// Sets of node ranks as bit words (p <= 256).
function emptySet(p) { return new Uint32Array((p + 31) >> 5); }
function setHas(s, i) { return (s[i >> 5] >>> (i & 31)) & 1; }
function setCount(s) {
  let c = 0;
  for (let w of s) { while (w) { w &= w - 1; ++c; } }
  return c;
}
function setList(s, p) {
  const out = [];
  for (let i = 0; i < p; ++i) if (setHas(s, i)) out.push(i);
  return out;
}

// The last entry of a time-ordered list at or before t.
function atTime(list, t) {
  let lo = 0, hi = list.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (list[mid].t <= t) lo = mid; else hi = mid - 1;
  }
  return list[lo];
}

class Panel {
  constructor(run, container) {
    this.run = run;
    const net = run.network;
    this.p = net.p;
    this.net = net;
    this.storeAndForward = run.model.routing === "store_and_forward";
    this.msgs = run.messages.map((m, i) => ({
      id: i, src: m[0], dst: m[1], request: m[2], start: m[3], end: m[4], waited: m[5],
      items: m[6], delay: m[7], links: m[8], waitFrom: m[3] - m[5] }));
    this.combines = run.combines.map((c) => ({ node: c[0], start: c[1], end: c[2] }));
    // Nodes that stopped (--fail), and when: [node, time].
    this.failed = (run.failed || []).map((f) => ({ node: f[0], at: f[1] }));
    // Links that went down (--fail link:), and when: [a, b, time].
    this.downLinks = (run.failed_links || []).map((f) => ({ a: f[0], b: f[1], at: f[2] }));
    this.seen = new Set();
    this.seenWaiting = new Set();
    this.holdings = this.computeHoldings();
    this.build(container);
  }

  // Per node, a time-ordered list of what it holds (see the page's header comment).
  computeHoldings() {
    const p = this.p, h = this.run.holdings, out = [];
    const events = [];
    for (const m of this.msgs) {
      events.push([m.end, 0, m]);
      events.push([m.request, 1, m]);
    }
    events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);  // at one instant, arrivals first
    if (h.mode === "items") {
      const held = [];
      for (let v = 0; v < p; ++v) {
        held.push(v === h.root ? h.total : 0);
        out.push([{ t: 0, count: held[v] }]);
      }
      for (const [t, kind, m] of events) {
        if (kind !== 0 || held[m.dst] >= h.total) continue;
        held[m.dst] = Math.min(h.total, held[m.dst] + m.items);
        out[m.dst].push({ t, count: held[m.dst] });
      }
      this.holdTotal = h.total;
      return out;
    }
    const sets = [];
    for (let v = 0; v < p; ++v) {
      const s = emptySet(p);
      s[v >> 5] |= 1 << (v & 31);
      sets.push(s);
      out.push([{ t: 0, count: 1, set: s.slice() }]);
    }
    for (const [t, kind, m] of events) {
      if (kind === 1) { m.carries = sets[m.src].slice(); continue; }
      const s = sets[m.dst];
      let changed = false;
      for (let w = 0; w < s.length; ++w) {
        const merged = s[w] | m.carries[w];
        if (merged !== s[w]) { s[w] = merged; changed = true; }
      }
      if (changed) out[m.dst].push({ t, count: setCount(s), set: s.slice() });
    }
    this.holdTotal = p;
    return out;
  }

  build(container) {
    const run = this.run, net = this.net;
    const box = make("div", { class: "panel" }, container);
    const h2 = make("h2", {}, box);
    const sub = make("div", { class: "sub" }, box);
    this.countsEl = make("div", { class: "counts" }, box);
    const bar = make("div", { class: "bar", title: "this run's progress" }, box);
    this.barEl = make("div", {}, bar);
    const formula = make("div", { class: "formula" }, box);
    const timing = "run's time " + fmt(run.time_ps) + "; contention " +
        fmt(run.stats.contention_critical_delay_ps) + " of it";
    if (run.program !== undefined) {  // an MPI program's run (vmc mpirun --show)
      h2.textContent = "MPI program " + run.program + " on " + net.spec + " (p = " + net.p + ")";
      sub.textContent = run.stats.messages + " messages; " + run.model.text;
      formula.textContent = timing;
    } else {
      h2.textContent = run.op + " " + run.algorithm + (run.forced ? "" : " (chosen by vmc)") +
                       " on " + net.spec + " (p = " + net.p + ")";
      sub.textContent = "n = " + run.n + " " + run.type + " items" +
          (run.holdings.mode === "items" || run.op === "broadcast" ? ", root " + run.root : "") +
          (run.detail ? "; " + run.detail : "") + "; " + run.model.text;
      // The paragraph of the algorithm file's opening comment that gives its cost.
      const cost = (run.note.match(/(?:^|\n)(Cost[\s\S]*?)(?=\n\s*\n|\n(?:Requires|Order)\b|$)/) ||
                    [null, ""])[1].trim();
      // With failures the run is not the one the formula describes: say whose time it is.
      const failing = (run.failed || []).length > 0 || (run.failed_links || []).length > 0;
      formula.textContent = "predicted " + fmt(run.predicted_ps) + " by the cost formula (" +
          run.claim + (failing ? " for the run without its failures)" : " for this run)") +
          (cost ? "\n" + cost : "") + "\n" + timing;
    }

    // The picture, scaled so the closest two vertices are about 1.3 units apart, and wide
    // enough for the middles of the bent links.
    const pts = net.vertices;
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity, close = Infinity;
    const extend = (x, y) => {
      minX = Math.min(minX, x); maxX = Math.max(maxX, x);
      minY = Math.min(minY, y); maxY = Math.max(maxY, y);
    };
    for (const [x, y] of pts) extend(x, y);
    for (const [a, b, , bend] of net.edges) {
      const [x0, y0] = pts[a], [x1, y1] = pts[b], len = Math.hypot(x1 - x0, y1 - y0) || 1;
      extend((x0 + x1) / 2 - (y1 - y0) / len * bend, (y0 + y1) / 2 + (x1 - x0) / len * bend);
    }
    for (let i = 0; i < pts.length; ++i)
      for (let j = i + 1; j < pts.length; ++j)
        close = Math.min(close, Math.hypot(pts[i][0] - pts[j][0], pts[i][1] - pts[j][1]));
    if (!isFinite(close)) close = 1;
    const scale = Math.max(22, Math.min(150, 560 / Math.max(1, maxX - minX, maxY - minY)));
    this.radius = Math.max(7, Math.min(17, 0.34 * close * scale));
    // A node box from the layout (hypercubes): the circle, the bits above it and the bar
    // below it fit inside it, so that no node's drawing reaches another's.
    let bitsFont = net.bits > 0 && net.bits <= 8 ? 9 : 0;
    if (net.node_box) {
      const halfW = net.node_box[0] * scale / 2, halfH = net.node_box[1] * scale / 2;
      bitsFont = Math.min(bitsFont, 2 * halfW / (0.62 * net.bits));
      if (bitsFont < 5.5) bitsFont = 0;
      // Above the centre: r, 3, the bits' line (1.05 font); below: r, 3, the bar (3 or 0.3 r).
      this.radius = Math.min(17, halfW - 0.5, halfH - 3 - 1.05 * bitsFont,
                             halfH - 6, (halfH - 3) / 1.3);
    }
    const margin = this.radius * 2.6 + 10;
    const width = (maxX - minX) * scale + 2 * margin, height = (maxY - minY) * scale + 2 * margin;
    this.scale = scale;
    this.xy = pts.map(([x, y]) => [(x - minX) * scale + margin, (maxY - y) * scale + margin]);
    const svg = make("svg", { class: "net", viewBox: "0 0 " + width + " " + height,
                              width: width, height: height }, box, SVG);
    svg.style.maxWidth = width + "px";
    this.svg = svg;
    // Links of the dimensions in use move to gLit, over the rest (hypercubes).
    const gLinks = make("g", {}, svg, SVG), gLit = make("g", {}, svg, SVG);
    const gWait = make("g", {}, svg, SVG);
    this.gLinks = gLinks;
    this.gLit = gLit;
    const gNodes = make("g", {}, svg, SVG);
    this.gMsgs = make("g", {}, svg, SVG);
    this.edgeEls = net.edges.map(([a, b, dim, bend], i) => {
      const colour = net.bits > 0 ? DIM_COLOURS[dim % DIM_COLOURS.length] : "#9a9a9a";
      const path = make("path", { class: "link", d: this.edgePath(i), stroke: colour,
                                  "stroke-width": 2, "data-edge": i }, gLinks, SVG);
      make("title", {}, path, SVG).textContent =
          "link " + a + " - " + b + (net.bits > 0 ? " (dimension " + dim + ")" : "");
      return path;
    });
    this.nodeEls = [];
    this.holdEls = [];
    const r = this.radius;
    for (let v = 0; v < pts.length; ++v) {
      const [x, y] = this.xy[v];
      if (v >= net.p) {
        make("rect", { class: "switch", x: x - r * 0.7, y: y - r * 0.7, width: r * 1.4,
                       height: r * 1.4 }, gNodes, SVG);
        continue;
      }
      const c = make("circle", { class: "node", cx: x, cy: y, r: r, "data-node": v }, gNodes, SVG);
      this.nodeEls.push(c);
      this.nodeTitle = make("title", {}, c, SVG);
      const label = make("text", { class: "label", x: x, y: y, "data-node": v }, gNodes, SVG);
      label.textContent = v;
      label.style.fontSize = Math.min(12, r * 0.95) + "px";
      if (bitsFont > 0) {
        const bits = make("text", { class: "bits", x: x, y: y - r - 3, "data-node": v },
                          gNodes, SVG);
        bits.textContent = v.toString(2).padStart(net.bits, "0");
        bits.style.fontSize = bitsFont + "px";
      }
      const bw = r * 2, bh = Math.max(3, r * 0.3);
      make("rect", { class: "hold-bg", x: x - r, y: y + r + 3, width: bw, height: bh,
                     "data-node": v }, gNodes, SVG);
      const on = make("rect", { class: "hold-on", x: x - r, y: y + r + 3, width: 0,
                                height: bh }, gNodes, SVG);
      const tip = make("title", {}, on, SVG);
      this.holdEls.push({ on, tip, width: bw });
    }
    this.gWait = gWait;
    this.markEls = [];
    this.waitEls = [];
  }

  // Edge i as a cubic curve (tools/show_layout.cpp's edge_point): its middle lies `bend`
  // units left of the line a -> b; a quadratic curve (its control 2 bend off the line) raised
  // to a cubic, or, lifted, one whose control points both stand 4/3 bend off its ends.
  edgeControls(i) {
    const [a, b, , bend, lifted] = this.net.edges[i];
    const [x0, y0] = this.xy[a], [x3, y3] = this.xy[b];
    const len = Math.hypot(x3 - x0, y3 - y0) || 1;
    const nx = (y3 - y0) / len, ny = -(x3 - x0) / len;  // screen y points down: left is (dy, -dx)
    if (lifted) {
      const c = 4 / 3 * bend * this.scale;
      return [[x0, y0], [x0 + nx * c, y0 + ny * c], [x3 + nx * c, y3 + ny * c], [x3, y3]];
    }
    const off = 2 * bend * this.scale;
    const q = [(x0 + x3) / 2 + off * nx, (y0 + y3) / 2 + off * ny];
    return [[x0, y0], [x0 + 2 * (q[0] - x0) / 3, y0 + 2 * (q[1] - y0) / 3],
            [x3 + 2 * (q[0] - x3) / 3, y3 + 2 * (q[1] - y3) / 3], [x3, y3]];
  }

  // A point of edge i, fraction f of the way from vertex `from` to its other end.
  edgePoint(i, from, f) {
    const [p0, p1, p2, p3] = this.edgeControls(i);
    const t = from === this.net.edges[i][0] ? f : 1 - f, s = 1 - t;
    const w = [s * s * s, 3 * s * s * t, 3 * s * t * t, t * t * t];
    return [w[0] * p0[0] + w[1] * p1[0] + w[2] * p2[0] + w[3] * p3[0],
            w[0] * p0[1] + w[1] * p1[1] + w[2] * p2[1] + w[3] * p3[1]];
  }

  edgePath(i) {
    const [p0, p1, p2, p3] = this.edgeControls(i);
    if (this.net.edges[i][3] === 0) return "M" + p0.join(" ") + "L" + p3.join(" ");
    return "M" + p0.join(" ") + "C" + [p1, p2, p3].map((p) => p.join(" ")).join(" ");
  }

  // A link held by k messages; a hypercube's in-use dimension is lit already, and its long
  // links would hide the rest if drawn as wide as a mesh's.
  busyWidth(k) {
    return this.net.node_box ? 3 + 1.2 * Math.min(k, 4) : 4 + 2.5 * Math.min(k, 6);
  }

  // Where a message is, fraction f of the way along its route.
  routePoint(m, f) {
    const hops = m.links.length;
    if (hops === 0) {
      const [x0, y0] = this.xy[m.src], [x1, y1] = this.xy[m.dst];
      return [x0 + (x1 - x0) * f, y0 + (y1 - y0) * f];
    }
    const at = Math.min(hops - 1, Math.floor(f * hops));
    const link = this.net.links[m.links[at]];
    return this.edgePoint(link[2], link[0], f * hops - at);
  }

  routePath(m) {
    const steps = Math.max(2, 8 * m.links.length);
    let d = "";
    for (let i = 0; i <= steps; ++i) {
      const [x, y] = this.routePoint(m, i / steps);
      d += (i ? "L" : "M") + x.toFixed(1) + " " + y.toFixed(1);
    }
    return d;
  }

  // Links a message holds at t: its whole route (wormhole), or the hop it is on.
  heldLinks(m, t) {
    if (!this.storeAndForward || m.links.length === 0) return m.links;
    const f = m.end > m.start ? (t - m.start) / (m.end - m.start) : 0;
    return [m.links[Math.min(m.links.length - 1, Math.floor(f * m.links.length))]];
  }

  render(t) {
    const run = this.run;
    const load = new Map();  // edge index -> messages holding it
    const flying = [], waiting = [];
    let done = 0, waitedSoFar = 0;
    for (const m of this.msgs) {
      if (m.end <= t && m.end < t) ++done;
      if (m.waited > 0 && m.waitFrom <= t) ++waitedSoFar;
      if (m.start <= t && t <= m.end) {
        flying.push(m);
        this.seen.add(m.id);
        if (t < m.end || m.start === m.end) {
          for (const l of this.heldLinks(m, t)) {
            const e = this.net.links[l][2];
            load.set(e, (load.get(e) || 0) + 1);
          }
        }
      } else if (m.waited > 0 && m.waitFrom <= t && t < m.start) {
        waiting.push(m);
        this.seenWaiting.add(m.id);
      }
      if (m.end === t) ++done;
    }
    const blocked = new Set();
    for (const m of waiting)
      for (const l of m.links) if (load.has(this.net.links[l][2])) blocked.add(this.net.links[l][2]);
    // Hypercubes: the dimensions of the links in use and wanted are drawn over the rest,
    // the others faded.
    const inUse = new Set();
    if (this.net.bits > 0) {
      for (const e of load.keys()) inUse.add(this.net.edges[e][2]);
      for (const m of waiting) {
        for (const l of m.links) inUse.add(this.net.edges[this.net.links[l][2]][2]);
      }
    }
    this.edgeEls.forEach((el, i) => {
      const k = load.get(i) || 0;
      el.classList.toggle("busy", k > 0 && !blocked.has(i));
      el.classList.toggle("blocked", blocked.has(i));
      el.setAttribute("stroke-width", k > 0 ? this.busyWidth(k) : 2);
      const lit = inUse.has(this.net.edges[i][2]);
      el.classList.toggle("faded", inUse.size > 0 && !lit);
      const group = lit ? this.gLit : this.gLinks;
      if (el.parentNode !== group) group.appendChild(el);
    });
    // Message marks.
    while (this.markEls.length < flying.length)
      this.markEls.push(make("circle", { class: "msg", r: Math.max(4, this.radius * 0.45) },
                             this.gMsgs, SVG));
    this.markEls.forEach((el, i) => {
      if (i >= flying.length) { el.style.display = "none"; return; }
      const m = flying[i];
      const f = m.end > m.start ? (t - m.start) / (m.end - m.start) : 1;
      const [x, y] = this.routePoint(m, f);
      el.style.display = "";
      el.setAttribute("cx", x);
      el.setAttribute("cy", y);
      el.setAttribute("data-message", m.id);
    });
    // Waiting messages: a dashed line along the route they want, a ring at the sender.
    while (this.waitEls.length < waiting.length) {
      const path = make("path", { class: "wait" }, this.gWait, SVG);
      const ring = make("circle", { class: "waitmark", r: this.radius * 0.55 }, this.gWait, SVG);
      this.waitEls.push({ path, ring });
    }
    this.waitEls.forEach((w, i) => {
      const show = i < waiting.length;
      w.path.style.display = w.ring.style.display = show ? "" : "none";
      if (!show) return;
      const m = waiting[i];
      w.path.setAttribute("d", this.routePath(m));
      const [x, y] = this.routePoint(m, 0.18);
      w.ring.setAttribute("cx", x);
      w.ring.setAttribute("cy", y);
    });
    // Nodes: combining, and what each holds.
    const combining = new Set();
    for (const c of this.combines) if (c.start <= t && t < c.end) combining.add(c.node);
    this.nodeEls.forEach((el, v) => el.classList.toggle("combining", combining.has(v)));
    const failed = new Set();
    for (const f of this.failed) if (f.at <= t) failed.add(f.node);
    this.nodeEls.forEach((el, v) => el.classList.toggle("failed", failed.has(v)));
    this.edgeEls.forEach((el, i) => {
      const [a, b] = this.net.edges[i];
      el.classList.toggle("down", this.downLinks.some((l) => l.at <= t &&
          ((l.a === a && l.b === b) || (l.a === b && l.b === a))));
    });
    this.holdEls.forEach((h, v) => {
      const now = atTime(this.holdings[v], t);
      h.on.setAttribute("width", h.width * now.count / this.holdTotal);
      h.tip.textContent = "node " + v + " holds " + (run.holdings.mode === "items"
          ? now.count + " of " + this.holdTotal + " items"
          : "the inputs of " + now.count + " of " + this.p + " nodes: " +
            setList(now.set, this.p).join(" "));
    });
    const finished = t >= run.time_ps;
    this.countsEl.textContent =
        "in flight " + String(flying.length).padStart(3) + "   waiting " +
        String(waiting.length).padStart(3) + "   combining " + String(combining.size).padStart(3) +
        "   done " + done + " of " + this.msgs.length + " messages" +
        "\nmessages that waited so far: " + waitedSoFar +
        (finished ? "   finished at " + fmt(run.time_ps) : "");
    this.barEl.style.width = Math.min(100, 100 * t / Math.max(1, run.time_ps)) + "%";
    this.state = { flying: flying.length, waiting: waiting.length, busy: load.size,
                   blocked: blocked.size, finished, dimensions_in_use: [...inUse].sort() };
  }
}

// ---- the page: panels on one time axis, controls, legend ----
const runs = DATA.runs;
const container = document.getElementById("panels");
const panels = runs.map((r) => new Panel(r, container));
const tMax = Math.max(1, ...runs.map((r) => r.time_ps));
const eventSet = new Set([0, tMax]);
for (const panel of panels) {
  eventSet.add(panel.run.time_ps);
  for (const m of panel.msgs) {
    eventSet.add(m.request); eventSet.add(m.waitFrom); eventSet.add(m.start); eventSet.add(m.end);
  }
  for (const c of panel.combines) { eventSet.add(c.start); eventSet.add(c.end); }
}
const events = [...eventSet].filter((t) => t >= 0 && t <= tMax).sort((a, b) => a - b);
document.getElementById("title").textContent = document.title;

let now = 0, playing = false, lastFrame = 0;
const slider = document.getElementById("slider");
const clock = document.getElementById("clock");
const playButton = document.getElementById("play");

function show(t) {
  now = Math.max(0, Math.min(tMax, t));
  for (const panel of panels) panel.render(now);
  slider.value = Math.round(100000 * now / tMax);
  clock.textContent = "t = " + fmt(now) + " of " + fmt(tMax);
}
function nextEvent() { return events.find((e) => e > now) ?? tMax; }
function previousEvent() {
  let prev = 0;
  for (const e of events) { if (e < now) prev = e; else break; }
  return prev;
}
function setPlaying(on) {
  playing = on && now < tMax;
  playButton.textContent = playing ? "pause" : "play";
  if (playing) { lastFrame = performance.now(); requestAnimationFrame(frame); }
}
function frame(wall) {
  if (!playing) return;
  const speed = Number(document.getElementById("speed").value);
  // At speed 1 the whole axis takes 12 seconds.
  show(now + (wall - lastFrame) / 12000 * tMax * speed);
  lastFrame = wall;
  if (now >= tMax) setPlaying(false); else requestAnimationFrame(frame);
}
document.getElementById("first").onclick = () => { setPlaying(false); show(0); };
document.getElementById("last").onclick = () => { setPlaying(false); show(tMax); };
document.getElementById("step").onclick = () => { setPlaying(false); show(nextEvent()); };
document.getElementById("back").onclick = () => { setPlaying(false); show(previousEvent()); };
playButton.onclick = () => { if (now >= tMax) show(0); setPlaying(!playing); };
slider.oninput = () => { setPlaying(false); show(tMax * slider.value / 100000); };
document.addEventListener("keydown", (e) => {
  const keys = { " ": "play", ArrowRight: "step", ArrowLeft: "back", Home: "first", End: "last" };
  if (keys[e.key] && e.target.tagName !== "SELECT") {
    e.preventDefault();
    document.getElementById(keys[e.key]).click();
  }
});

function legend() {
  const box = document.getElementById("legend");
  const m = runs[0].model;
  const item = (html) => { const d = make("div", {}, box); d.innerHTML = html; };
  make("h3", {}, box).textContent = "What you see";
  item('<span class="key" style="border-color:#0b3d91"></span>a link held by a message ' +
       '(thicker: several messages share it)' +
       '<span class="key" style="border-color:#e41a1c"></span>held, and wanted by a waiting message' +
       '<span class="key" style="border-color:#ff7f0e;border-top-style:dashed"></span>a message ' +
       'waiting for a link or port, along the route it wants');
  item("Yellow dots: messages moving along their routes (start to end). A green ring: the node " +
       "is combining. The bar under a node: " + (runs[0].holdings.mode === "items"
         ? "how many of the items have reached it."
         : "how many nodes' inputs have reached it, directly or through others (hover for " +
           "which).") + (runs.some((r) => (r.failed || []).length > 0)
         ? " A grey node with a dashed edge: it has failed (--fail) and stopped." : "") +
       (runs.some((r) => (r.failed_links || []).length > 0)
         ? " A dotted black link: it has failed (--fail link:) and is down." : ""));
  make("h3", {}, box).textContent = "The machine model";
  const params = make("pre", {}, box);
  params.textContent =
      "alpha = " + fmt(m.alpha_ps) + "   startup of every message\n" +
      "beta  = " + fmt(m.beta_ps) + "   per item transferred (a message of n items: alpha + n beta)\n" +
      "gamma = " + fmt(m.gamma_ps) + "   per item combined\n" +
      "port " + m.port + ": " + ({ exchange: "one neighbour at a time; sending to and receiving from it at once (000)",
        duplex: "one send and one receive at a time, to and from any nodes (004, 001)",
        half: "one transfer at a time", all: "any number at once, one message per link direction" })[m.port] + "\n" +
      "routing " + m.routing + ": " + ({ direct: "every pair adjacent, no shared links",
        wormhole: "a message holds every link of its route for its whole duration (004 §2)",
        store_and_forward: "each hop is a message of its own" })[m.routing] + "\n" +
      "contention " + m.contention + ": " + ({ exclusive: "a held link is waited for",
        shared: "k messages on one link each get 1/k of it (001)" })[m.contention] + "\n" +
      "protocol " + m.protocol + ": " + ({ eager: "a message may start before its receive is posted",
        rendezvous: "a message starts only once its receive is posted (000 §2)" })[m.protocol];
  for (const r of runs) {
    make("h3", {}, box).textContent = r.op + " " + r.algorithm + " on " + r.network.spec;
    const pre = make("pre", {}, box);
    pre.textContent = r.description + "\nrequires: " + r.requirements +
        "\ncost formula: " + r.claim + " for this run (predicted " + fmt(r.predicted_ps) +
        ", run's time " + fmt(r.time_ps) + ")" +
        (r.file ? "\n\nfrom " + r.file + ":\n" + r.note : "");
  }
}
legend();

// Whether every link of a dimension in use comes after (is drawn over) every other link.
function litOnTop(panel) {
  const order = [...panel.svg.querySelectorAll("path.link")];
  const lit = order.map((el) => el.parentNode === panel.gLit);
  return lit.lastIndexOf(false) < lit.indexOf(true) || !lit.includes(true);
}

// Per node, the rendered boxes [left, top, right, bottom] of what is drawn for it (circle,
// number, bits, the bar of what it holds), in the page's pixels.
function nodeBoxes(panel) {
  const boxes = Array.from({ length: panel.p }, () => []);
  for (const el of panel.svg.querySelectorAll("[data-node]")) {
    const r = el.getBoundingClientRect();
    boxes[Number(el.getAttribute("data-node"))].push([r.left, r.top, r.right, r.bottom]
        .map((x) => Math.round(x * 100) / 100));
  }
  return boxes;
}

function writeStatus() {
  const status = {
    t_ps: now, t_max_ps: tMax, errors: window.vmcErrors,
    runs: panels.map((p) => ({
      network: p.net.spec, p: p.p,
      nodes: p.svg.querySelectorAll("circle.node").length,
      switches: p.svg.querySelectorAll("rect.switch").length,
      links: p.svg.querySelectorAll("path.link").length,
      messages: p.msgs.length, seen: p.seen.size, seen_waiting: p.seenWaiting.size,
      time_ps: p.run.time_ps, state: p.state, lit_on_top: litOnTop(p),
      node_boxes: nodeBoxes(p),
      holdings: p.holdings.map((h) => atTime(h, now).count), hold_total: p.holdTotal })),
  };
  const el = document.getElementById("vmc-status");
  el.textContent = JSON.stringify(status);
}

// A moment of #at=: end, a fraction F of the way (0 <= F <= 1), or a virtual time with its
// unit (1.2ms, 500us, 3ns, 2s, 7ps). Anything else is an error the status lists, and the
// page shows the start.
function momentOf(what) {
  if (what === "end") return tMax;
  const time = /^(\d+(?:\.\d*)?|\.\d+)(ps|ns|us|ms|s)$/.exec(what);
  if (time) {
    return Math.round(Number(time[1]) * { ps: 1, ns: 1e3, us: 1e6, ms: 1e9, s: 1e12 }[time[2]]);
  }
  const fraction = Number(what);
  if (what !== "" && fraction >= 0 && fraction <= 1) return tMax * fraction;
  console.error("#at=" + what + " is not a moment: end, wait, a fraction from 0 to 1, " +
                "or a time with its unit (1.2ms)");
  return 0;
}

// The fragment: #end steps through every event; #at=wait|F|end|time shows one moment.
const hash = decodeURIComponent(location.hash.slice(1));
show(0);
if (hash === "end") {
  while (now < tMax) show(nextEvent());
} else if (hash.startsWith("at=")) {
  const what = hash.slice(3);
  if (what === "wait") {
    show(events.find((e) => { show(e); return panels.some((p) => p.state.waiting > 0); }) ?? 0);
  } else {
    show(momentOf(what));
  }
}
writeStatus();
slider.addEventListener("change", writeStatus);
for (const id of ["first", "back", "step", "last"])
  document.getElementById(id).addEventListener("click", writeStatus);
</script>
</body>
</html>
)vmcpage";

}  // namespace vmc::cli
