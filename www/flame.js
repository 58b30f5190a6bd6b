// One flame-graph canvas: draws boxes the worker laid out, hit-tests, zooms and pans.
//
// The worker answers a query for an x range and a minimum box width with columns
// {node, frame, depth, x, width, self, count}, row by row, left to right. This view keeps the
// last answer, draws from it at any zoom (merging boxes that became narrower than a pixel, so
// widths stay true) and asks again when the view leaves the range or the detail no longer fits.

import { bound, eventTarget, listen } from "./context.js";

/** Frame id of the root box and of merged boxes without a dominant frame. */
export const MERGED = 0xffffffff;
/** Node id of a merged box (several boxes too narrow to show on their own). */
export const NO_NODE = 0xffffffff;
const ROW = 18;
const AXIS = 18;
const LABEL_FONT = "12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace";

/** Index of the first element of `arr[lo..hi)` for which `pred` is true (arr sorted by it). */
function bisect(lo, hi, pred) {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pred(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export class FlameView {
  /**
   * @param {HTMLCanvasElement} canvas
   * @param {object} o  query(vp) → Promise<boxes>; label(frame) → string; color(frame) → css;
   *   rootLabel() → string; inverted (root at top); axis (draw a time axis); onHover(hit, ev);
   *   onClick(hit); onContext(hit, ev); onZoom(); firstRow (lowest depth drawn);
   *   boxColor(boxes, i) → css (optional: colours boxes by their own data instead of by frame;
   *   a run of sub-pixel boxes takes the colour of its widest box).
   */
  constructor(canvas, o) {
    this.canvas = canvas;
    this.o = o;
    this.ctx = canvas.getContext("2d");
    this.inverted = !!o.inverted;
    this.firstRow = o.firstRow || 0;
    this.domain = [0, 1];
    this.vx0 = 0;
    this.vx1 = 1;
    this.scrollY = 0;
    this.data = null;
    this.generation = 0;
    this.pending = false;
    this.highlight = { flags: null, selected: -1, selectedNode: -1, outlined: null };
    this.drawTimes = [];
    this.hoverIndex = -1;
    this.dark = false;
    this.frameRequested = false;
    this.attach();
    this.resize();
  }

  // ---- geometry ----

  resize() {
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, this.canvas.clientWidth);
    const h = Math.max(1, this.canvas.clientHeight);
    this.cssW = w;
    this.cssH = h;
    if (this.canvas.width !== Math.round(w * dpr) || this.canvas.height !== Math.round(h * dpr)) {
      this.canvas.width = Math.round(w * dpr);
      this.canvas.height = Math.round(h * dpr);
    }
    this.dpr = dpr;
    this.requestDraw();
    // A view laid out while hidden (1 px wide) asks again for detail at its real width.
    if (this.data || this.pending) this.fetch();
  }

  top() {
    return this.o.axis ? AXIS : 0;
  }

  /** y (css px) of the top of row `depth`. */
  rowY(depth) {
    const d = depth - this.firstRow;
    return this.inverted ? this.top() + d * ROW - this.scrollY : this.cssH - (d + 1) * ROW + this.scrollY;
  }

  /** The row under css y. */
  rowAt(y) {
    const d = this.inverted ? Math.floor((y - this.top() + this.scrollY) / ROW) : Math.floor((this.cssH - y + this.scrollY) / ROW);
    return d + this.firstRow;
  }

  xToPx(x) {
    return ((x - this.vx0) / (this.vx1 - this.vx0)) * this.cssW;
  }

  pxToX(px) {
    return this.vx0 + (px / this.cssW) * (this.vx1 - this.vx0);
  }

  // ---- data ----

  /** Sets the full x extent and shows all of it. */
  setDomain(x0, x1, keepView) {
    this.domain = [x0, x1 > x0 ? x1 : x0 + 1];
    if (!keepView) {
      this.vx0 = this.domain[0];
      this.vx1 = this.domain[1];
      this.scrollY = 0;
    }
    this.clampView();
    this.invalidate();
  }

  /** Drops the current boxes and asks the worker again (options changed). */
  invalidate() {
    this.data = null;
    this.generation++;
    this.pending = false;
    this.fetch();
  }

  wantMinWidth() {
    return (this.vx1 - this.vx0) / this.cssW;
  }

  dataFits() {
    const d = this.data;
    if (!d) return false;
    const want = this.wantMinWidth();
    const covers = d.qx0 <= this.vx0 && d.qx1 >= this.vx1;
    return covers && d.minWidth <= want * 1.01 && d.minWidth >= want / 8;
  }

  fetch() {
    if (this.pending || this.dataFits()) return;
    const span = this.vx1 - this.vx0;
    const vp = {
      x0: Math.max(this.domain[0], this.vx0 - span),
      x1: Math.min(this.domain[1], this.vx1 + span),
      minWidth: this.wantMinWidth() / 2,
      maxDepth: 0xffffffff,
    };
    const gen = this.generation;
    this.pending = true;
    this.o
      .query(vp)
      .then((boxes) => {
        if (gen !== this.generation) return;
        this.pending = false;
        this.setBoxes(boxes, vp);
        this.fetch();
      })
      .catch((e) => {
        if (gen === this.generation) this.pending = false;
        if (this.o.onError) this.o.onError(e);
      });
  }

  setBoxes(b, vp) {
    const n = b.depth.length;
    const maxDepth = n ? b.depth[n - 1] : 0;
    const rowStart = new Int32Array(maxDepth + 2);
    let k = 0;
    for (let d = 0; d <= maxDepth + 1; d++) {
      while (k < n && b.depth[k] < d) k++;
      rowStart[d] = k;
    }
    this.data = { b, rowStart, maxDepth, qx0: vp.x0, qx1: vp.x1, minWidth: vp.minWidth };
    this.requestDraw();
    if (this.o.onData) this.o.onData(this.data);
  }

  // ---- view changes ----

  clampView() {
    const [d0, d1] = this.domain;
    const full = d1 - d0;
    const span = Math.min(full, Math.max(this.vx1 - this.vx0, full * 1e-9));
    const x0 = Math.min(Math.max(this.vx0, d0), d1 - span);
    this.vx0 = x0;
    this.vx1 = x0 + span;
    const rows = this.data ? this.data.maxDepth - this.firstRow + 1 : 0;
    const maxScroll = Math.max(0, rows * ROW + this.top() - this.cssH + ROW);
    this.scrollY = Math.min(Math.max(this.scrollY, 0), maxScroll);
  }

  setView(x0, x1) {
    this.vx0 = x0;
    this.vx1 = x1;
    this.clampView();
    this.requestDraw();
    this.fetch();
    if (this.o.onZoom) this.o.onZoom();
  }

  /** Smoothly moves the view to `[x0, x1)`. */
  animateTo(x0, x1, ms = 160) {
    const from = [this.vx0, this.vx1];
    const start = performance.now();
    const step = bound((now) => {
      const t = Math.min(1, (now - start) / ms);
      const e = t * (2 - t);
      this.setView(from[0] + (x0 - from[0]) * e, from[1] + (x1 - from[1]) * e);
      if (t < 1) requestAnimationFrame(step);
    });
    requestAnimationFrame(step);
  }

  zoomAround(px, factor) {
    const x = this.pxToX(px);
    const x0 = x - (x - this.vx0) * factor;
    const x1 = x + (this.vx1 - x) * factor;
    this.setView(x0, x1);
  }

  panBy(dxPx, dyPx) {
    const dx = (dxPx / this.cssW) * (this.vx1 - this.vx0);
    this.scrollY += this.inverted ? -dyPx : dyPx;
    this.setView(this.vx0 - dx, this.vx1 - dx);
  }

  resetZoom() {
    this.scrollY = 0;
    this.animateTo(this.domain[0], this.domain[1]);
  }

  // ---- hit testing ----

  /** The box index under css (x, y), or -1. */
  hit(px, py) {
    const d = this.data;
    if (!d) return -1;
    const depth = this.rowAt(py);
    if (depth < this.firstRow || depth > d.maxDepth) return -1;
    const x = this.pxToX(px);
    const b = d.b;
    const lo = d.rowStart[depth];
    const hi = d.rowStart[depth + 1];
    const i = bisect(lo, hi, (k) => b.x[k] + b.width[k] > x);
    if (i < hi && b.x[i] <= x) return i;
    // A sub-pixel box drawn merged: report the nearest box within half a pixel.
    const tol = (this.vx1 - this.vx0) / this.cssW / 2;
    if (i < hi && b.x[i] - x < tol) return i;
    return -1;
  }

  boxInfo(i) {
    const b = this.data.b;
    return {
      index: i,
      node: b.node[i],
      frame: b.frame[i],
      depth: b.depth[i],
      x: b.x[i],
      width: b.width[i],
      self: b.self[i],
      count: b.count[i],
    };
  }

  /** Boxes at lower depth that contain `x` (the ancestors of a box), outermost first. */
  ancestorsAt(x, depth) {
    const d = this.data;
    const out = [];
    if (!d) return out;
    for (let r = this.firstRow; r < depth && r <= d.maxDepth; r++) {
      const lo = d.rowStart[r];
      const hi = d.rowStart[r + 1];
      const i = bisect(lo, hi, (k) => d.b.x[k] + d.b.width[k] > x);
      if (i < hi && d.b.x[i] <= x) out.push(this.boxInfo(i));
    }
    return out;
  }

  // ---- drawing ----

  setHighlight(h) {
    this.highlight = { ...this.highlight, ...h };
    this.requestDraw();
  }

  requestDraw() {
    if (this.frameRequested) return;
    this.frameRequested = true;
    requestAnimationFrame(
      bound(() => {
        this.frameRequested = false;
        this.draw();
      }),
    );
  }

  draw() {
    const t0 = performance.now();
    const { ctx, dpr } = this;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const style = this.themeColors();
    const bg = style.getPropertyValue("--canvas-bg").trim() || "#fff";
    ctx.fillStyle = bg;
    ctx.fillRect(0, 0, this.cssW, this.cssH);
    const d = this.data;
    if (d) this.drawRows(ctx, d, style);
    if (this.o.axis) this.drawAxis(ctx, style);
    const ms = performance.now() - t0;
    this.drawTimes.push(ms);
    if (this.drawTimes.length > 200) this.drawTimes.shift();
    if (d && this.o.onDrawn) this.o.onDrawn(ms);
  }

  /** The page's theme colours, read once per theme (see `themeChanged`). */
  themeColors() {
    if (!this.theme) {
      const computed = getComputedStyle(this.canvas);
      const names = ["--canvas-bg", "--frame-text", "--merged", "--dimmed", "--selected", "--axis-bg", "--axis-line"];
      const values = new Map(names.map((n) => [n, computed.getPropertyValue(n)]));
      this.theme = { getPropertyValue: (n) => values.get(n) || "" };
    }
    return this.theme;
  }

  /** Call after the page's colour scheme changed. */
  themeChanged() {
    this.theme = null;
    this.requestDraw();
  }

  drawRows(ctx, d, style) {
    const b = d.b;
    const scale = this.cssW / (this.vx1 - this.vx0);
    const textColor = style.getPropertyValue("--frame-text").trim() || "#000";
    const mergedColor = style.getPropertyValue("--merged").trim() || "#bbb";
    const dimColor = style.getPropertyValue("--dimmed").trim() || "#ddd";
    const { flags, selected, selectedNode, outlined } = this.highlight;
    const boxColor = this.o.boxColor;
    const colorOf = boxColor ? (_frame, i) => boxColor(b, i) : (frame) => this.o.color(frame);
    ctx.font = LABEL_FONT;
    ctx.textBaseline = "middle";
    if (!this.charW) this.charW = ctx.measureText("M").width || 7;
    const labels = [];
    const selectedRects = [];
    // Setting fillStyle parses a colour string: set it only when it changes.
    let lastFill = "";
    const fill = (color) => {
      if (color !== lastFill) {
        ctx.fillStyle = color;
        lastFill = color;
      }
    };
    for (let depth = this.firstRow; depth <= d.maxDepth; depth++) {
      const y = this.rowY(depth);
      if (y > this.cssH || y + ROW < this.top()) continue;
      const lo = d.rowStart[depth];
      const hi = d.rowStart[depth + 1];
      let i = bisect(lo, hi, (k) => b.x[k] + b.width[k] > this.vx0);
      // Boxes narrower than a pixel are gathered into runs about one pixel wide, each drawn
      // in the colour of the frame that covers more than half of it (grey when none does).
      let runStart = -1;
      let runEnd = -1;
      const runFrames = [MERGED, MERGED, MERGED, MERGED];
      const runWidths = [0, 0, 0, 0];
      let runWidest = -1;
      let runWidestW = 0;
      const flush = () => {
        if (runStart < 0) return;
        let dominant = MERGED;
        for (let k = 0; k < 4; k++) {
          if (runFrames[k] !== MERGED && runWidths[k] * 2 > runEnd - runStart) dominant = runFrames[k];
        }
        fill(dominant === MERGED ? mergedColor : flags && !flags[dominant] ? dimColor : colorOf(dominant, runWidest));
        ctx.fillRect(runStart, y, Math.max(runEnd - runStart, 0.5), ROW - 1);
        runStart = -1;
      };
      for (; i < hi; i++) {
        const x = b.x[i];
        if (x >= this.vx1) break;
        const px0 = (x - this.vx0) * scale;
        const pw = b.width[i] * scale;
        const frame = b.frame[i];
        const node = b.node[i];
        if (pw < 1 || node === NO_NODE) {
          if (runStart < 0 || px0 - runEnd >= 1) {
            flush();
            runStart = px0;
            runEnd = px0;
            runFrames.fill(MERGED);
            runWidths.fill(0);
            runWidestW = -1;
          }
          if (pw > runWidestW) {
            runWidest = i;
            runWidestW = pw;
          }
          runEnd = Math.max(runEnd, px0 + pw);
          // Width per frame for the first four distinct frames (a merged box from the worker
          // without a dominant frame counts for none).
          if (frame !== MERGED) {
            for (let k = 0; k < 4; k++) {
              if (runFrames[k] === frame || runFrames[k] === MERGED) {
                runFrames[k] = frame;
                runWidths[k] += pw;
                break;
              }
            }
          }
          if (runEnd - runStart >= 1) flush();
          continue;
        }
        flush();
        const left = Math.max(px0, -1);
        const right = Math.min(px0 + pw, this.cssW + 1);
        const isRoot = node === 0;
        // The root is grey, unless boxes are coloured by their own data (the differential
        // graph, where the root's change is the change of the whole selection).
        fill(isRoot && !boxColor ? mergedColor : flags && !flags[frame] && !isRoot ? dimColor : colorOf(frame, i));
        ctx.fillRect(left, y, Math.max(right - left - (pw > 3 ? 1 : 0), 1), ROW - 1);
        if (!isRoot && ((selectedNode >= 0 ? node === selectedNode : frame === selected) || outlined?.has(frame)))
          selectedRects.push([left, y, right - left - 1]);
        if (right - left > this.charW * 3 + 6) labels.push(i, left, right, y);
      }
      flush();
    }
    fill(textColor);
    for (let k = 0; k < labels.length; k += 4) {
      const i = labels[k];
      const [left, right, y] = [labels[k + 1], labels[k + 2], labels[k + 3]];
      const name = b.node[i] === 0 ? this.o.rootLabel() : this.o.label(b.frame[i]);
      const maxChars = Math.floor((right - left - 6) / this.charW);
      const text = name.length > maxChars ? `${name.slice(0, Math.max(0, maxChars - 1))}…` : name;
      ctx.fillText(text, left + 3, y + ROW / 2);
    }
    if (selectedRects.length) {
      ctx.strokeStyle = style.getPropertyValue("--selected").trim() || "#000";
      ctx.lineWidth = 2;
      for (const [x, y, w] of selectedRects) ctx.strokeRect(x + 1, y + 1, Math.max(w - 2, 1), ROW - 3);
    }
  }

  drawAxis(ctx, style) {
    ctx.fillStyle = style.getPropertyValue("--axis-bg").trim() || "#eee";
    ctx.fillRect(0, 0, this.cssW, AXIS);
    ctx.fillStyle = style.getPropertyValue("--frame-text").trim() || "#000";
    ctx.strokeStyle = style.getPropertyValue("--axis-line").trim() || "#999";
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    const span = this.vx1 - this.vx0;
    const rough = span / Math.max(1, this.cssW / 100);
    const pow = 10 ** Math.floor(Math.log10(rough));
    const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= rough) || pow * 10;
    const first = Math.ceil(this.vx0 / step) * step;
    ctx.beginPath();
    for (let x = first; x < this.vx1; x += step) {
      const px = Math.round(this.xToPx(x)) + 0.5;
      ctx.moveTo(px, AXIS - 5);
      ctx.lineTo(px, AXIS);
      ctx.fillText(this.o.axisLabel ? this.o.axisLabel(x) : String(x), px + 3, AXIS / 2);
    }
    ctx.stroke();
  }

  // ---- input ----

  attach() {
    const c = this.canvas;
    c.tabIndex = 0;
    let drag = null;
    c.addEventListener(
      "wheel",
      (e) => {
        e.preventDefault();
        const rect = c.getBoundingClientRect();
        if (e.shiftKey) {
          this.panBy(0, -e.deltaY);
        } else if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
          this.panBy(-e.deltaX, 0);
        } else {
          const speed = e.ctrlKey ? 0.01 : 0.002;
          this.zoomAround(e.clientX - rect.left, Math.exp(e.deltaY * speed));
        }
      },
      { passive: false },
    );
    c.addEventListener("mousedown", (e) => {
      if (e.button !== 0) return;
      drag = { x: e.clientX, y: e.clientY, moved: false };
      c.focus();
    });
    listen(window, "mousemove", (e) => {
      if (drag) {
        const dx = e.clientX - drag.x;
        const dy = e.clientY - drag.y;
        if (drag.moved || Math.abs(dx) + Math.abs(dy) > 3) {
          drag.moved = true;
          this.panBy(dx, dy);
          drag.x = e.clientX;
          drag.y = e.clientY;
          c.classList.add("dragging");
        }
      }
    });
    listen(window, "mouseup", (e) => {
      if (!drag) return;
      const wasDrag = drag.moved;
      drag = null;
      c.classList.remove("dragging");
      if (wasDrag || eventTarget(e) !== c) return;
      const rect = c.getBoundingClientRect();
      const i = this.hit(e.clientX - rect.left, e.clientY - rect.top);
      if (i >= 0) {
        const info = this.boxInfo(i);
        this.animateTo(info.x, info.x + info.width);
        if (this.o.onClick) this.o.onClick(info);
      }
    });
    c.addEventListener("mousemove", (e) => {
      if (drag?.moved) return;
      const rect = c.getBoundingClientRect();
      const i = this.hit(e.clientX - rect.left, e.clientY - rect.top);
      this.hoverIndex = i;
      if (this.o.onHover) this.o.onHover(i >= 0 ? this.boxInfo(i) : null, e);
    });
    c.addEventListener("mouseleave", () => {
      if (this.o.onHover) this.o.onHover(null, null);
    });
    c.addEventListener("contextmenu", (e) => {
      const rect = c.getBoundingClientRect();
      const i = this.hit(e.clientX - rect.left, e.clientY - rect.top);
      if (i >= 0 && this.o.onContext) {
        e.preventDefault();
        this.o.onContext(this.boxInfo(i), e);
      }
    });
    // Pinch on touch screens: two pointers apart / together.
    const touches = new Map();
    c.addEventListener("pointerdown", (e) => {
      if (e.pointerType === "touch") touches.set(e.pointerId, e.clientX);
    });
    c.addEventListener("pointermove", (e) => {
      if (e.pointerType !== "touch" || !touches.has(e.pointerId) || touches.size !== 2) return;
      const [a, b] = [...touches.values()];
      const before = Math.abs(a - b);
      touches.set(e.pointerId, e.clientX);
      const [c2, d2] = [...touches.values()];
      const after = Math.abs(c2 - d2);
      if (before > 10 && after > 10) {
        const rect = c.getBoundingClientRect();
        this.zoomAround((c2 + d2) / 2 - rect.left, before / after);
      }
    });
    const up = (e) => touches.delete(e.pointerId);
    c.addEventListener("pointerup", up);
    c.addEventListener("pointercancel", up);
  }

  /** Keyboard: `+`/`-` zoom, `0` reset, arrows pan. Returns true when the key was used. */
  key(e) {
    const mid = this.cssW / 2;
    const span = this.vx1 - this.vx0;
    switch (e.key) {
      case "+":
      case "=":
        this.zoomAround(mid, 0.5);
        return true;
      case "-":
      case "_":
        this.zoomAround(mid, 2);
        return true;
      case "0":
        this.resetZoom();
        return true;
      case "ArrowLeft":
        this.setView(this.vx0 - span * 0.1, this.vx1 - span * 0.1);
        return true;
      case "ArrowRight":
        this.setView(this.vx0 + span * 0.1, this.vx1 + span * 0.1);
        return true;
      case "ArrowUp":
        this.panBy(0, this.inverted ? ROW * 3 : -ROW * 3);
        return true;
      case "ArrowDown":
        this.panBy(0, this.inverted ? -ROW * 3 : ROW * 3);
        return true;
      default:
        return false;
    }
  }

  /** Visible frames (frame ids of boxes at least a pixel wide in the view), for tests. */
  visibleFrames() {
    const d = this.data;
    const out = new Set();
    if (!d) return out;
    const scale = this.cssW / (this.vx1 - this.vx0);
    for (let i = 0; i < d.b.frame.length; i++) {
      const x0 = d.b.x[i];
      const x1 = x0 + d.b.width[i];
      if (x1 <= this.vx0 || x0 >= this.vx1 || d.b.width[i] * scale < 1) continue;
      if (d.b.node[i] !== NO_NODE && d.b.node[i] !== 0) out.add(d.b.frame[i]);
    }
    return out;
  }
}
