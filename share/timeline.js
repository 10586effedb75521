// SPDX-License-Identifier: GPL-2.0-or-later
// lp-svg's timeline: a row per thread, nested by spawn tree, on one time
// axis. The file embeds every interval exactly (deflated varints, base64, in
// <metadata id="lp-timeline">); each redraw merges what falls in one pixel,
// so any zoom level shows the real intervals and 1M of them stay fast.
"use strict";
(function () {
	var NS = "http://www.w3.org/2000/svg", XNS = "http://www.w3.org/1999/xhtml";
	var cfg, bands, rows, N, iv, ivStack, onAt, offAt, stacks, wakeT, wakeBy, wakeAt, wakeG;
	// code regions: per row, in the order they began (start, end, depth, name index into cfg's rnames)
	var regS, regE, regD, regN, regAt, rnames, regionSel = null;
	var W, X0, BW, rowh, fs, yOf, bandOf, rowsEnd;
	// the rows as a tree (by depth: each row's subtree follows it), and which are shown
	var kidsOf, subEnd, subCpu, subFrom, subTo, folded, vis = [], order = "cpu", bandHeads = [], glyphs = [];
	var v0 = 0, v1 = 1, canvases = [], labels = [], tip, status, unzoomBtn, selected = -1;
	var searchRe = null, searchText = null, flameG, flameFocus = null;
	var ready = false, hoverWake = null;
	var ON = "rgb(214,48,39)", OFF = "rgb(49,110,200)";

	function $(id) { return document.getElementById(id); }
	function el(tag, attrs, parent, text) {
		var e = document.createElementNS(NS, tag);
		for (var k in attrs) e.setAttribute(k, attrs[k]);
		if (text !== undefined) e.textContent = text;
		if (parent) parent.appendChild(e);
		return e;
	}

	function mark(what) { if (window.performance && performance.mark) performance.mark(what); }

	function init() {
		mark("lp-start");
		var meta = $("lp-timeline");
		if (!meta || typeof DecompressionStream === "undefined") return;
		var b64 = meta.textContent.replace(/\s+/g, "");
		// the browser's own base64 decoder where it has one: a JS loop over 8 MB costs 100 ms
		var bytes = Uint8Array.fromBase64 ? Promise.resolve(Uint8Array.fromBase64(b64)) :
			fetch("data:application/octet-stream;base64," + b64).then(function (r) { return r.arrayBuffer(); })
				.catch(function () {
					var bin = atob(b64), out = new Uint8Array(bin.length);
					for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
					return out;
				});
		bytes.then(function (raw) {
			var stream = new Blob([raw]).stream().pipeThrough(new DecompressionStream("deflate"));
			return new Response(stream).arrayBuffer();
		}).then(function (buf) {
			mark("lp-inflated");
			var all = new Uint8Array(buf);
			var hlen = all[0] | all[1] << 8 | all[2] << 16 | all[3] * 16777216;
			var head = JSON.parse(new TextDecoder().decode(all.subarray(4, 4 + hlen)));
			load(head, all, 4 + hlen);
			mark("lp-decoded");
			build();
			mark("lp-built");
			restore();
			draw();
			var ns = $("noscript");
			if (ns) ns.parentNode.removeChild(ns);
			ready = true;
			mark("lp-drawn");
		});
	}

	// Intervals: per row, on-CPU then off-CPU, each (gap from the previous end, length);
	// then each one's stack (its place in the row's list), in the same order.
	function load(d, bytes, at) {
		cfg = d.cfg; bands = d.bands; rows = d.threads; N = rows.length;
		var total = 0, r, k, x, b, mul;
		function varint() {
			b = bytes[at++]; x = b & 127;
			if (b & 128) {
				mul = 128;
				do { b = bytes[at++]; x += (b & 127) * mul; mul *= 128; } while (b & 128);
			}
			return x;
		}
		for (r = 0; r < N; r++) total += rows[r].non + rows[r].noff;
		iv = new Float64Array(2 * total); ivStack = new Int32Array(total);
		onAt = new Int32Array(N + 1); offAt = new Int32Array(N + 1);
		var p = 0;
		for (r = 0; r < N; r++) {
			onAt[r] = p;
			for (var which = 0; which < 2; which++) {
				if (which) offAt[r] = p;
				var n = which ? rows[r].noff : rows[r].non, prev = 0;
				for (k = 0; k < n; k++) {
					var s = prev + varint();
					prev = s + varint();
					iv[2 * p] = s; iv[2 * p + 1] = prev; p++;
				}
			}
		}
		onAt[N] = offAt[N] = p;
		for (k = 0; k < total; k++) ivStack[k] = varint();
		var dec = new TextDecoder();
		stacks = new Array(N);
		for (r = 0; r < N; r++) {
			var ns = varint(), list = new Array(ns);
			for (k = 0; k < ns; k++) {
				var len = varint(), name = dec.decode(bytes.subarray(at, at + len));
				at += len;
				var won = varint(), woff = varint();
				list[k] = [name, won, woff];
			}
			stacks[r] = list;
		}
		// wake-ups: per row, in time order, (gap from the previous, by): by 0 an interrupt,
		// 1 a thread not drawn, else 2 + the waker's row
		var nw = 0;
		for (r = 0; r < N; r++) nw += rows[r].nwake || 0;
		wakeT = new Float64Array(nw); wakeBy = new Int32Array(nw); wakeAt = new Int32Array(N + 1);
		p = 0;
		for (r = 0; r < N; r++) {
			wakeAt[r] = p;
			var wt = 0;
			for (k = 0; k < (rows[r].nwake || 0); k++) { wt += varint(); wakeT[p] = wt; wakeBy[p] = varint(); p++; }
		}
		wakeAt[N] = p;
		rnames = (d.rnames || []).map(unescapeFrame);
		var nr = 0;
		for (r = 0; r < N; r++) nr += rows[r].nreg || 0;
		regS = new Float64Array(nr); regE = new Float64Array(nr); regD = new Int32Array(nr); regN = new Int32Array(nr);
		regAt = new Int32Array(N + 1);
		p = 0;
		for (r = 0; r < N; r++) {
			regAt[r] = p;
			var rs = 0;
			for (k = 0; k < (rows[r].nreg || 0); k++) {
				rs += varint(); regS[p] = rs; regE[p] = rs + varint(); regD[p] = varint(); regN[p] = varint(); p++;
			}
		}
		regAt[N] = p;
	}

	// The regions of row r around time t, outermost first (indexes).
	function regionsAt(r, t) {
		var out = [];
		for (var k = regAt[r]; k < regAt[r + 1]; k++) if (regS[k] <= t && t < regE[k]) out.push(k);
		return out.sort(function (a, b) { return regD[a] - regD[b]; });
	}
	function regionColor(k) {
		var h = hashName(rnames[regN[k]] || "");
		return "rgb(" + (40 + h % 60) + "," + (150 + (h >>> 8) % 80) + "," + (60 + (h >>> 16) % 60) + ")";
	}
	// Bands on top of row r: a region a line, nested ones below their outer one.
	function drawRegions(ctx, r, yr, sc1) {
		for (var k = regAt[r]; k < regAt[r + 1]; k++) {
			if (regE[k] < v0 || regS[k] > v1 || regD[k] > 3) continue;
			var x0 = Math.max(0, (regS[k] - v0) * sc1), x1 = Math.min(BW, (regE[k] - v0) * sc1);
			ctx.fillStyle = regionColor(k);
			ctx.fillRect(x0, yr + 1 + regD[k] * 3, Math.max(x1 - x0, 1), 2);
		}
	}

	// The wake-up of row r inside [s, e] (an off-CPU interval ends with it), or -1.
	function wakeIn(r, s, e) {
		var lo = wakeAt[r], hi = wakeAt[r + 1];
		while (lo < hi) { var m = (lo + hi) >> 1; if (wakeT[m] < s) lo = m + 1; else hi = m; }
		return lo < wakeAt[r + 1] && wakeT[lo] <= e ? lo : -1;
	}

	// An arrow from the waker's row to row r at the wake-up k (none: null).
	function showWake(r, k) {
		while (wakeG.firstChild) wakeG.removeChild(wakeG.firstChild);
		if (k === null || k < 0 || wakeBy[k] < 2 || wakeT[k] < v0 || wakeT[k] > v1) return;
		var from = shownRow(wakeBy[k] - 2), x = X0 + (wakeT[k] - v0) / (v1 - v0) * BW;
		if (from === r) return;
		var y0 = yOf[from] + rowh / 2, y1 = yOf[r] + rowh / 2, dir = y1 > y0 ? 1 : -1, head = Math.min(6, rowh / 2);
		el("line", { x1: x, x2: x, y1: y0, y2: y1 - dir * head, "class": "wake" }, wakeG);
		el("path", { d: "M" + x + "," + y1 + " l" + (-head / 2) + "," + (-dir * head) + " h" + head + " z", "class": "wake" }, wakeG);
		el("circle", { cx: x, cy: y0, r: 2.5, "class": "wake" }, wakeG);
	}
	function wakeWords(k, end) {
		var by = wakeBy[k], what = by === 0 ? "an interrupt (a timer, a device)" :
			by === 1 ? "a thread not drawn here" : rowName(rows[by - 2]);
		return "woken by " + what + " at " + fmtT(wakeT[k]) + ", then waited " + fmtT(end - wakeT[k]) + " for a CPU";
	}

	function fmtT(ns) {
		var a = Math.abs(ns);
		if (a >= 1e9) return (ns / 1e9).toFixed(a >= 1e11 ? 1 : 3) + " s";
		if (a >= 1e6) return (ns / 1e6).toFixed(a >= 1e8 ? 1 : 2) + " ms";
		if (a >= 1e3) return (ns / 1e3).toFixed(a >= 1e5 ? 1 : 2) + " \u00b5s";
		return Math.round(ns) + " ns";
	}
	function rowName(t) { return t.comm + (t.tid === t.pid ? " [" + t.pid + "]" : " " + t.tid); }

	function build() {
		W = cfg.width; rowh = cfg.rowh; fs = cfg.fs;
		X0 = cfg.labelw + 10; BW = Math.max(50, W - X0 - 10);
		v0 = 0; v1 = Math.max(cfg.span, 1);
		var g = $("tl"), r, b;
		yOf = new Float64Array(N); bandOf = new Int32Array(N);
		for (b = 0; b < bands.length; b++)
			for (r = bands[b].rows[0]; r < bands[b].rows[1]; r++) bandOf[r] = b;
		tree();
		// legend and buttons
		var ly = fs * 3.6, lx = 10;
		function legend(color, text) {
			el("rect", { x: lx, y: ly - fs * 0.8, width: fs, height: fs * 0.9, fill: color }, g);
			var t = el("text", { x: lx + fs * 1.3, y: ly, "class": "hint" }, g, text);
			lx += fs * 1.3 + text.length * fs * 0.6 + 16;
			return t;
		}
		legend(ON, "on-CPU (from samples)");
		legend(OFF, "off-CPU (intervals)");
		legend("rgb(222,222,222)", "alive");
		legend("black", "\u25bc exec  | exit");
		el("text", { x: lx, y: ly, "class": "hint" }, g,
		   "zoom: ctrl+wheel, + or - \u00b7 pan: drag or arrow keys \u00b7 whole run: 0 \u00b7 click a row: its flame graph \u00b7 \u25b8: unfold");
		var ob = el("text", { x: 10, y: fs * 2, "class": "button", id: "order" }, g, "");
		ob.addEventListener("click", function () { order = order === "cpu" ? "start" : "cpu"; layout(); remember(); });
		var sb = el("text", { x: W - 10, y: fs * 2, "class": "button", id: "search", "text-anchor": "end" }, g, "Search");
		sb.addEventListener("click", askSearch);
		window.lpRename.attach(g, W - 200, fs * 2, function () { if (selected >= 0) flame(); remember(); });
		unzoomBtn = el("text", { x: 10 + fs * 11, y: fs * 2, "class": "button hide", id: "unzoom" }, g, "Reset Zoom");
		unzoomBtn.addEventListener("click", function () { setView(0, cfg.span); });
		status = el("text", { x: 10, y: 0, id: "status" }, g, " ");
		// band headers and row labels, placed by layout
		for (b = 0; b < bands.length; b++) {
			var bd = bands[b], what = bd.name;
			if (bd.host) what += "  host=" + bd.host;
			if (bd.rank) what += "  rank=" + bd.rank;
			if (bands.length > 1 && !cfg.aligned && b === 0) what += "  (bands each start at 0: not every input has #lp.realtime)";
			bandHeads.push([el("text", { x: 10, "class": "band" }, g, what),
				el("line", { x1: 10, x2: W - 10, stroke: "rgb(180,180,200)" }, g)]);
		}
		// (a cut name keeps three characters at least)
		var maxChars = function (px) { return Math.max(5, Math.floor(px / (fs * 0.59))); };
		for (r = 0; r < N; r++) {
			var t = rows[r], indent = Math.min(t.d * 10, cfg.labelw / 2), name = rowName(t);
			var room = maxChars(cfg.labelw - indent - 8 - fs);
			if (name.length > room) name = name.substring(0, room - 2) + "..";
			labels.push(el("text", { x: 10 + indent + fs, "class": "label" + (t.tid === t.pid ? "" : " thread"), "data-row": r }, g, name));
			glyphs.push(kidsOf[r].length ? el("text", { x: 10 + indent, "class": "fold", "data-row": r }, g, "") : null);
		}
		// bars: canvases in slices (browsers cap a canvas's size), made by layout
		// the axis: ticks drawn with the rows
		axisG = el("g", {}, g);
		canvasG = g;
		el("rect", { x: X0, y: cfg.top - fs * 1.8, width: BW, height: fs * 1.8, fill: "rgba(0,0,0,0)", id: "axis" }, g)
			.addEventListener("wheel", function (e) { e.preventDefault(); wheelZoom(e); }, { passive: false });
		flameG = el("g", { id: "flame" }, g);
		wakeG = el("g", { id: "wake" }, g);
		tip = el("g", { id: "tip", style: "display: none" }, g);
		el("rect", {}, tip); el("text", {}, tip);
		var svg = document.documentElement;
		svg.addEventListener("mousemove", hover);
		svg.addEventListener("mouseleave", function () { tip.style.display = "none"; showWake(0, null); });
		svg.addEventListener("mousedown", dragStart);
		svg.addEventListener("wheel", function (e) {
			if (e.ctrlKey || e.metaKey) { e.preventDefault(); wheelZoom(e); }
			else if (Math.abs(e.deltaX) > Math.abs(e.deltaY) && inBars(e)) { e.preventDefault(); pan(e.deltaX / BW); }
		}, { passive: false });
		document.addEventListener("keydown", key);
		window.addEventListener("scroll", drawVisible);
		window.addEventListener("resize", drawVisible);
		foldToFit();
		layout(true);
	}
	var axisG, canvasG;

	// ---- the rows as a tree: folded subtrees, siblings by CPU time or by start ----

	// Each row's children (the rows one level deeper in its subtree: rows come in
	// spawn-tree order, a subtree after its root) and what its subtree holds.
	function tree() {
		kidsOf = new Array(N); subEnd = new Int32Array(N); subCpu = new Float64Array(N);
		subFrom = new Float64Array(N); subTo = new Float64Array(N); folded = new Uint8Array(N);
		var stack = [], r, t;
		for (r = 0; r < N; r++) kidsOf[r] = [];
		for (r = 0; r < N; r++) {
			t = rows[r];
			while (stack.length && (rows[stack[stack.length - 1]].d >= t.d || bandOf[stack[stack.length - 1]] !== bandOf[r])) subEnd[stack.pop()] = r;
			if (stack.length && t.d > 0) kidsOf[stack[stack.length - 1]].push(r);
			stack.push(r);
		}
		while (stack.length) subEnd[stack.pop()] = N;
		for (r = N - 1; r >= 0; r--) {
			t = rows[r];
			subCpu[r] += t.cpu !== null ? t.cpu : t.scpu;
			subFrom[r] = t.start;
			subTo[r] = Math.max(subTo[r], t.end !== null ? t.end : Math.max(t.last, t.start));
			for (var k = 0; k < kidsOf[r].length; k++) {
				var c = kidsOf[r][k];
				subCpu[r] += subCpu[c]; subFrom[r] = Math.min(subFrom[r], subFrom[c]); subTo[r] = Math.max(subTo[r], subTo[c]);
			}
		}
	}

	// A row's children as shown: its threads first, then the processes spawned, each
	// by CPU time (their subtree's), the heaviest first, or as they started.
	function kidsShown(r) {
		var ks = kidsOf[r].slice(), pid = rows[r].pid;
		if (order === "cpu")
			ks.sort(function (a, b) {
				var ta = rows[a].pid === pid ? 0 : 1, tb = rows[b].pid === pid ? 0 : 1;
				return ta - tb || subCpu[b] - subCpu[a] || a - b;
			});
		return ks;
	}

	// Folded so that the first screen is filled with the heaviest work: every
	// subtree folded, then unfolded, the heaviest first, while rows are shown that
	// do not fill the window (the last one's children may reach below it).
	function foldToFit() {
		var room = Math.max(24, Math.floor((window.innerHeight - cfg.top - fs * 4) / rowh) - bands.length);
		if (N <= room) return;
		var shown = 0, heap = [], r;
		function push(x) {
			heap.push(x);
			for (var i = heap.length - 1; i > 0;) {
				var p = (i - 1) >> 1;
				if (subCpu[heap[p]] >= subCpu[heap[i]]) break;
				var tmp = heap[p]; heap[p] = heap[i]; heap[i] = tmp; i = p;
			}
		}
		function pop() {
			var top = heap[0], last = heap.pop();
			if (heap.length) {
				heap[0] = last;
				for (var i = 0; ;) {
					var a = 2 * i + 1, b = a + 1, m = i;
					if (a < heap.length && subCpu[heap[a]] > subCpu[heap[m]]) m = a;
					if (b < heap.length && subCpu[heap[b]] > subCpu[heap[m]]) m = b;
					if (m === i) break;
					var tmp = heap[m]; heap[m] = heap[i]; heap[i] = tmp; i = m;
				}
			}
			return top;
		}
		for (r = 0; r < N; r++) {
			if (kidsOf[r].length) folded[r] = 1;
			if (rows[r].d === 0) { shown++; if (kidsOf[r].length) push(r); }
		}
		while (heap.length && shown < room) {
			r = pop();
			folded[r] = 0;
			shown += kidsOf[r].length;
			for (var k = 0; k < kidsOf[r].length; k++) if (kidsOf[kidsOf[r][k]].length) push(kidsOf[r][k]);
		}
	}

	// The shown row that stands for row r: r, or the folded row its subtree is in.
	function shownRow(r) {
		while (yOf[r] < 0) {
			var p = r - 1;
			while (p >= 0 && !(rows[p].d < rows[r].d && subEnd[p] > r)) p--;
			if (p < 0) return r;
			r = p;
		}
		return r;
	}

	// Places the shown rows, their labels, the band headers and the canvases.
	function layout(first) {
		var y = cfg.top, b, r, k;
		vis = [];
		for (r = 0; r < N; r++) yOf[r] = -1;
		for (b = 0; b < bands.length; b++) {
			bandHeads[b][0].setAttribute("y", y + rowh * 0.75);
			bandHeads[b][1].setAttribute("y1", y + rowh - 0.5); bandHeads[b][1].setAttribute("y2", y + rowh - 0.5);
			y += rowh;
			var stack = [];
			for (r = bands[b].rows[1] - 1; r >= bands[b].rows[0]; r--) if (rows[r].d === 0) stack.push(r);
			if (order === "cpu") stack.sort(function (a, c) { return subCpu[a] - subCpu[c] || c - a; });
			while (stack.length) {
				r = stack.pop();
				vis.push(r); yOf[r] = y; y += rowh;
				if (!folded[r]) { var ks = kidsShown(r); for (k = ks.length - 1; k >= 0; k--) stack.push(ks[k]); }
			}
		}
		rowsEnd = y;
		for (r = 0; r < N; r++) {
			var on = yOf[r] >= 0;
			labels[r].setAttribute("y", on ? yOf[r] + rowh * 0.75 : -100);
			labels[r].style.display = on ? "" : "none";
			if (glyphs[r]) {
				glyphs[r].setAttribute("y", on ? yOf[r] + rowh * 0.75 : -100);
				glyphs[r].style.display = on ? "" : "none";
				glyphs[r].textContent = folded[r] ? "\u25b8" : "\u25be";
			}
		}
		status.setAttribute("y", rowsEnd + fs * 1.5);
		$("order").textContent = "order: " + (order === "cpu" ? "CPU time" : "start");
		// canvases in slices (browsers cap a canvas's size), each made when a row in it is first drawn
		for (k = 0; k < canvases.length; k++) if (canvases[k].fo) canvases[k].fo.parentNode.removeChild(canvases[k].fo);
		canvases = [];
		var CH = Math.floor(1024 / rowh) * rowh, dpr = window.devicePixelRatio || 1;
		for (var c0 = cfg.top; c0 < rowsEnd; c0 += CH)
			canvases.push({ top: c0, h: Math.min(CH, rowsEnd - c0), ctx: null, dpr: dpr, wd: Math.round(BW * dpr), g: canvasG });
		var svg = document.documentElement, height = rowsEnd + fs * 4;
		svg.setAttribute("height", height);
		svg.setAttribute("viewBox", "0 0 " + W + " " + height);
		if (!first) {
			if (searchText) search(searchText);
			if (selected >= 0) flame();
			draw();
		}
	}

	// Unfolds what hides row r.
	function unfoldTo(r) {
		if (yOf[r] >= 0) return;
		for (var q = r - 1, d = rows[r].d; q >= 0 && d > 0; q--)
			if (rows[q].d < d && subEnd[q] > r) { folded[q] = 0; d = rows[q].d; }
		layout();
	}

	function toggle(r) {
		folded[r] = folded[r] ? 0 : 1;
		layout();
	}

	function svgPoint(e) {
		var svg = document.documentElement, pt = svg.createSVGPoint();
		pt.x = e.clientX; pt.y = e.clientY;
		return pt.matrixTransform(svg.getScreenCTM().inverse());
	}
	function rowAt(y) {
		if (y < cfg.top || y >= rowsEnd) return -1;
		var lo = 0, hi = vis.length - 1;
		while (lo <= hi) {
			var m = (lo + hi) >> 1;
			if (yOf[vis[m]] > y) hi = m - 1;
			else if (yOf[vis[m]] + rowh <= y) lo = m + 1;
			else return vis[m];
		}
		return -1;
	}
	function inBars(e) { var p = svgPoint(e); return p.x >= X0 && p.x < X0 + BW && p.y >= cfg.top && p.y < rowsEnd; }

	function setView(a, b) {
		var span = Math.max(cfg.span, 1), minw = 1000;
		if (b - a < minw) { var m = (a + b) / 2; a = m - minw / 2; b = m + minw / 2; }
		if (b - a > span) { a = 0; b = span; }
		if (a < 0) { b -= a; a = 0; }
		if (b > span) { a -= b - span; b = span; }
		v0 = Math.max(0, a); v1 = b;
		unzoomBtn.setAttribute("class", v0 > 0 || v1 < span ? "button" : "button hide");
		draw();
		remember();
	}
	function zoomAt(frac, factor) {
		var t = v0 + frac * (v1 - v0), w = (v1 - v0) * factor;
		setView(t - frac * w, t - frac * w + w);
	}
	function pan(frac) { var d = frac * (v1 - v0); setView(v0 + d, v1 + d); }
	function wheelZoom(e) {
		var p = svgPoint(e), frac = Math.min(1, Math.max(0, (p.x - X0) / BW));
		zoomAt(frac, e.deltaY < 0 ? 1 / 1.25 : 1.25);
	}
	function key(e) {
		if (e.target && e.target.tagName === "INPUT") return;
		if (e.key === "+" || e.key === "=") zoomAt(0.5, 1 / 1.5);
		else if (e.key === "-" || e.key === "_") zoomAt(0.5, 1.5);
		else if (e.key === "ArrowLeft") pan(-0.1);
		else if (e.key === "ArrowRight") pan(0.1);
		else if (e.key === "0" || e.key === "Escape") setView(0, cfg.span);
		else if ((e.ctrlKey || e.metaKey) && e.key === "f") { e.preventDefault(); askSearch(); }
		else return;
		e.preventDefault();
	}

	var drag = null;
	function dragStart(e) {
		if (e.button !== 0) return;
		var p = svgPoint(e);
		drag = { x: e.clientX, a: v0, b: v1, moved: false, p: p };
		function move(ev) {
			var dx = ev.clientX - drag.x;
			if (Math.abs(dx) > 3) drag.moved = true;
			if (drag.moved && drag.p.x >= X0) {
				var d = -dx / BW * (drag.b - drag.a);
				setView(drag.a + d, drag.b + d);
			}
		}
		function up() {
			document.removeEventListener("mousemove", move);
			document.removeEventListener("mouseup", up);
			if (!drag.moved) {
				var r = rowAt(drag.p.y), gx = r >= 0 && glyphs[r] ? +glyphs[r].getAttribute("x") : -1;
				var rk = r >= 0 ? bandAt(r, drag.p) : -1;
				if (gx >= 0 && drag.p.x >= gx - 3 && drag.p.x < gx + fs) toggle(r);
				else if (rk >= 0) { regionSel = { row: r, k: rk }; select(r, true); }
				else if (r >= 0 && (drag.p.x >= X0 || drag.p.x < cfg.labelw)) { regionSel = null; select(r); }
			}
			drag = null;
		}
		document.addEventListener("mousemove", move);
		document.addEventListener("mouseup", up);
	}

	// The first interval of a row's list [from, to) that ends after t.
	function firstAfter(from, to, t) {
		var lo = from, hi = to;
		while (lo < hi) { var m = (lo + hi) >> 1; if (iv[2 * m + 1] <= t) lo = m + 1; else hi = m; }
		return lo;
	}

	// Coverage of each pixel column by [from, to) intervals, in pixels (0..1).
	function cover(cov, from, to, width) {
		var sc = width / (v1 - v0);
		for (var k = firstAfter(from, to, v0); k < to; k++) {
			var s = iv[2 * k], e = iv[2 * k + 1];
			if (s >= v1) break;
			var x0 = Math.max(0, (s - v0) * sc), x1 = Math.min(width, (e - v0) * sc);
			var p0 = Math.floor(x0), p1 = Math.floor(x1);
			if (p1 >= width) p1 = width - 1;
			// narrower than a pixel: still seen, as a quarter of one
			if (p0 >= p1) { cov[p0] += Math.max(x1 - x0, 0.25); continue; }
			cov[p0] += p0 + 1 - x0;
			for (var p = p0 + 1; p < p1; p++) cov[p] = 1;
			cov[p1] += x1 - p1;
		}
	}

	// Rows are drawn when they are on screen: a redraw costs the rows in view, not all of them.
	var version = 0, drawnAt, rowImg = null, covOn, covOff;
	function rgba(r, g, b) { return (255 << 24 | b << 16 | g << 8 | r) >>> 0; }
	var PX_ON = rgba(214, 48, 39), PX_OFF = rgba(49, 110, 200), PX_ALIVE = rgba(222, 222, 222),
		PX_TICK = rgba(232, 232, 240), PX_SEL = rgba(255, 245, 190), PX_MATCH = rgba(250, 225, 245);

	function draw() {
		version++;
		if (!drawnAt) drawnAt = new Int32Array(N);
		for (var ci = 0; ci < canvases.length; ci++) if (canvases[ci].ctx) canvases[ci].ctx.clearRect(0, 0, BW, canvases[ci].h);
		drawVisible();
		drawAxis(tickStep());
		drawChart();
	}

	function drawVisible() {
		var svg = document.documentElement, m = svg.getScreenCTM();
		if (!m || !N) return;
		var inv = m.inverse(), pt = svg.createSVGPoint();
		pt.x = 0; pt.y = -200;
		var y0 = pt.matrixTransform(inv).y;
		pt.y = window.innerHeight + 200;
		var y1 = pt.matrixTransform(inv).y;
		// from the first shown row that reaches into view
		var lo = 0, hi = vis.length;
		while (lo < hi) { var m = (lo + hi) >> 1; if (yOf[vis[m]] + rowh <= y0) lo = m + 1; else hi = m; }
		for (var i = lo; i < vis.length && yOf[vis[i]] < y1; i++)
			if (drawnAt[vis[i]] !== version) drawRow(vis[i]);
	}

	function makeCanvas(c) {
		var fo = el("foreignObject", { x: X0, y: c.top, width: BW, height: c.h });
		c.g.insertBefore(fo, axisG);
		c.fo = fo;
		var cv = document.createElementNS(XNS, "canvas");
		cv.width = c.wd; cv.height = Math.round(c.h * c.dpr);
		cv.style.width = BW + "px"; cv.style.height = c.h + "px"; cv.style.display = "block";
		fo.appendChild(cv);
		c.ctx = cv.getContext("2d");
		c.ctx.scale(c.dpr, c.dpr);
	}

	function drawRow(r) {
		drawnAt[r] = version;
		var c = null;
		for (var ci = 0; ci < canvases.length; ci++)
			if (yOf[r] >= canvases[ci].top && yOf[r] < canvases[ci].top + canvases[ci].h) c = canvases[ci];
		if (!c) return;
		if (!c.ctx) makeCanvas(c);
		var ctx = c.ctx, dpr = c.dpr, Wd = c.wd, Hd = Math.round(rowh * dpr);
		if (!rowImg || rowImg.width !== Wd || rowImg.height !== Hd) {
			rowImg = ctx.createImageData(Wd, Hd);
			rowImg.px = new Uint32Array(rowImg.data.buffer);
			covOn = new Float32Array(Wd); covOff = new Float32Array(Wd);
		}
		var px = rowImg.px, t = rows[r], x, y, sc = Wd / (v1 - v0);
		var match = searchRe && labels[r].getAttribute("class").indexOf("match") >= 0;
		px.fill(r === selected ? PX_SEL : match ? PX_MATCH : 0);
		var step = tickStep();
		for (var tt = Math.ceil(v0 / step) * step; tt <= v1; tt += step) {
			x = Math.round((tt - v0) * sc);
			if (x >= 0 && x < Wd) for (y = 0; y < Hd; y++) px[y * Wd + x] = PX_TICK;
		}
		var top = Math.round(2 * dpr), h = Hd - 2 * top;
		// alive: a thin bar from start to exit (or the end of the recording); folded, its subtree's
		var fold = folded[r] && kidsOf[r].length, from = fold ? subFrom[r] : t.start;
		var end = fold ? subTo[r] : t.end !== null ? t.end : Math.max(t.last, t.start);
		var a = Math.max(0, Math.floor((from - v0) * sc)), b = Math.min(Wd, Math.ceil((end - v0) * sc));
		if (b <= a && a < Wd && end >= v0) b = a + 1;
		for (y = top + (h >> 2); y < top + h - (h >> 2); y++) for (x = a; x < b; x++) px[y * Wd + x] = PX_ALIVE;
		// each pixel column: on-CPU share from the bottom, off-CPU share above it
		covOn.fill(0); covOff.fill(0);
		// folded: every thread of its subtree in one row (busy where any is)
		for (var q = r; q < (fold ? subEnd[r] : r + 1); q++) {
			cover(covOn, onAt[q], offAt[q], Wd);
			cover(covOff, offAt[q], onAt[q + 1], Wd);
		}
		for (x = 0; x < Wd; x++) {
			var on = covOn[x], off = covOff[x];
			if (on + off <= 0) continue;
			var hOn = Math.round(Math.min(on, 1) * h), hOff = Math.min(h - hOn, Math.round(Math.min(off, 1) * h));
			if (on > 0 && hOn === 0 && hOff < h) hOn = 1;
			if (off > 0 && hOff === 0 && hOn < h) hOff = 1;
			var yb = top + h;
			for (y = yb - hOn; y < yb; y++) px[y * Wd + x] = PX_ON;
			for (y = yb - hOn - hOff; y < yb - hOn; y++) px[y * Wd + x] = PX_OFF;
		}
		ctx.putImageData(rowImg, 0, Math.round((yOf[r] - c.top) * dpr));
		// exec and exit marks over it
		var yr = yOf[r] - c.top, sc1 = BW / (v1 - v0);
		drawRegions(ctx, r, yr, sc1);
		ctx.fillStyle = "black";
		for (var k = 0; k < t.execs.length; k++) {
			var ex = (t.execs[k] - v0) * sc1;
			if (ex < -4 || ex > BW + 4) continue;
			ctx.beginPath(); ctx.moveTo(ex - 3.5, yr + 2); ctx.lineTo(ex + 3.5, yr + 2); ctx.lineTo(ex, yr + 7); ctx.fill();
		}
		if (t.end !== null) {
			var xe = (t.end - v0) * sc1;
			if (xe >= -1 && xe <= BW + 1) ctx.fillRect(Math.min(xe, BW - 2), yr + 1, 2, rowh - 2);
		}
	}

	function tickStep() {
		var want = (v1 - v0) / Math.max(2, BW / 110), step = 1;
		while (step * 10 <= want) step *= 10;
		if (step * 5 <= want) step *= 5; else if (step * 2 <= want) step *= 2;
		return step;
	}
	function drawAxis(step) {
		while (axisG.firstChild) axisG.removeChild(axisG.firstChild);
		var sc = BW / (v1 - v0);
		for (var t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
			var x = X0 + (t - v0) * sc;
			el("text", { x: x, y: cfg.top - fs * 0.5, "class": "axis", "text-anchor": x > W - 40 ? "end" : "middle" }, axisG, t === 0 ? "0" : fmtT(t).replace(/\.0+ /, " ").replace(/(\.\d*?)0+ /, "$1 "));
			el("line", { x1: x, x2: x, y1: cfg.top - fs * 0.3, y2: cfg.top, stroke: "rgb(120,120,120)" }, axisG);
		}
	}

	function showTip(p, lines) {
		var text = tip.lastChild, rect = tip.firstChild;
		while (text.firstChild) text.removeChild(text.firstChild);
		var w = 0;
		for (var i = 0; i < lines.length; i++) {
			var ts = el("tspan", { x: 6, dy: i ? fs * 1.25 : fs * 1.1 }, text, lines[i].text || lines[i]);
			if (lines[i].warn) ts.setAttribute("class", "warn");
			w = Math.max(w, (lines[i].text || lines[i]).length * fs * 0.55);
		}
		var h = lines.length * fs * 1.25 + fs * 0.6;
		rect.setAttribute("width", w + 12); rect.setAttribute("height", h);
		var svg = document.documentElement, vb = svg.viewBox.baseVal;
		var x = p.x + 14, y = p.y + 14;
		if (x + w + 12 > W) x = Math.max(0, p.x - w - 26);
		if (y + h > vb.height) y = Math.max(0, Math.min(p.y - h - 10, vb.height - h));
		// a long spawning stack on a short picture: make room rather than cut it off
		if (y + h > vb.height) {
			svg.setAttribute("height", Math.ceil(y + h + 4));
			svg.setAttribute("viewBox", "0 0 " + W + " " + Math.ceil(y + h + 4));
		}
		tip.setAttribute("transform", "translate(" + x + "," + y + ")");
		tip.style.display = "";
	}

	function findNear(from, to, t, slack) {
		var k = firstAfter(from, to, t);
		if (k < to && iv[2 * k] <= t) return k;
		k = firstAfter(from, to, t - slack);
		return k < to && iv[2 * k] <= t + slack ? k : -1;
	}

	function rowLines(r, t) {
		var th = rows[r], out = [];
		out.push(th.comm + "  pid " + th.pid + " tid " + th.tid + (th.tid === th.pid ? "  (process)" : "  (thread)"));
		if (th.exe) out.push("exec'd " + th.exe + (th.execs.length ? " at " + fmtT(th.execs[th.execs.length - 1]) : ""));
		out.push("alive " + fmtT(th.start) + " \u2192 " + (th.end !== null ? fmtT(th.end) + " (" + fmtT(th.end - th.start) + ")" +
			(th.withproc ? " with its process" : "") : "end of recording (no exit seen)") + (th.status ? ", exit " + th.status : ""));
		var cpu = "on-CPU: sampled " + fmtT(th.scpu);
		if (th.cpu !== null) {
			cpu = "on-CPU: exact " + fmtT(th.cpu) + ", sampled " + fmtT(th.scpu);
			var big = Math.max(th.cpu, th.scpu), diff = Math.abs(th.cpu - th.scpu);
			if (diff > 0.25 * big && diff > 2e6) out.push({ text: "\u26a0 " + cpu + " (they disagree: too few samples, or lost ones)", warn: true });
			else out.push(cpu);
		} else out.push(cpu + " (no exact figure: no T record)");
		out.push("off-CPU: " + fmtT(th.soff) + " in " + th.noff + " interval" + (th.noff === 1 ? "" : "s"));
		if (kidsOf[r].length) {
			var nt = subEnd[r] - r - 1, np = 0;
			for (var q = r + 1; q < subEnd[r]; q++) if (rows[q].tid === rows[q].pid) np++;
			out.push((folded[r] ? "folded here: " : "below: ") + nt + " thread" + (nt === 1 ? "" : "s") + " (" + np + " process" + (np === 1 ? "" : "es") +
				"), on-CPU " + fmtT(subCpu[r] - (th.cpu !== null ? th.cpu : th.scpu)) + (folded[r] ? " \u00b7 click \u25b8 to unfold" : ""));
		}
		if (t !== null) {
			// what is under the pointer, or within two pixels of it: small intervals are hard to hit
			var slack = 2 * (v1 - v0) / BW, k = findNear(offAt[r], onAt[r + 1], t, slack), off = k >= 0;
			if (!off) k = findNear(onAt[r], offAt[r], t, slack);
			if (k >= 0) {
				var fr = framesOf(r, ivStack[k]);
				out.push("here: " + (off ? "off-CPU " + fmtT(iv[2 * k + 1] - iv[2 * k]) + " from " + fmtT(iv[2 * k]) :
					"on-CPU " + fmtT(iv[2 * k]) + " \u2192 " + fmtT(iv[2 * k + 1])) + (fr.length ? " in " + fr[fr.length - 1] : ""));
				var rg = regionsAt(r, t);
				if (rg.length) out.push("in region " + rg.map(function (q) { return rnames[regN[q]] + " (" + fmtT(regE[q] - regS[q]) + ")"; }).join(" \u203a ") + " \u00b7 click its band: its flame graph");
				var wk = off ? wakeIn(r, iv[2 * k], iv[2 * k + 1]) : -1;
				if (wk >= 0) out.push(wakeWords(wk, iv[2 * k + 1]));
				hoverWake = [r, wk];
			} else {
				out.push("here: " + fmtT(t));
				var rg0 = regionsAt(r, t);
				if (rg0.length) out.push("in region " + rg0.map(function (q) { return rnames[regN[q]] + " (" + fmtT(regE[q] - regS[q]) + ")"; }).join(" \u203a "));
			}
		}
		if (th.p >= 0) out.push("spawned by " + rowName(rows[th.p]) + " at " + fmtT(th.spawned));
		if (th.spawn && th.spawn.length) {
			out.push("spawning stack (leaf first):");
			for (var i = 0; i < th.spawn.length && i < 24; i++) out.push("  " + th.spawn[i]);
			if (th.spawn.length > 24) out.push("  ... " + (th.spawn.length - 24) + " more");
		}
		return out;
	}

	function hover(e) {
		if (drag && drag.moved) return;
		var p = svgPoint(e);
		if (flameFrames && p.y >= flameTop) { flameHover(p); return; }
		if (chart && p.y >= chart.y && p.y < chart.y + Math.max(chart.depth, 1) * chart.fh) {
			if (!chartHover(p)) tip.style.display = "none";
			return;
		}
		var r = rowAt(p.y);
		if (r < 0 || p.x >= X0 + BW) { tip.style.display = "none"; showWake(0, null); return; }
		var t = p.x >= X0 ? v0 + (p.x - X0) / BW * (v1 - v0) : null;
		hoverWake = null;
		showTip(p, rowLines(r, t));
		showWake(hoverWake ? hoverWake[0] : 0, hoverWake ? hoverWake[1] : null);
	}

	function askSearch() {
		var s = window.prompt("Threads to find (regular expression, on name, pid, tid, program):", searchText || "");
		if (s === null) return;
		search(s);
	}
	function search(s) {
		searchText = s || null;
		try { searchRe = s ? new RegExp(s) : null; } catch (err) { searchRe = null; status.textContent = "bad regular expression: " + err.message; return; }
		var n = 0;
		for (var r = 0; r < N; r++) {
			var t = rows[r], cls = "label" + (t.tid === t.pid ? "" : " thread");
			if (searchRe) {
				var hit = searchRe.test(rowName(t) + " " + t.pid + "/" + t.tid + " " + (t.exe || ""));
				cls += hit ? " match" : " dim";
				if (hit) n++;
			}
			if (r === selected) cls += " selected";
			labels[r].setAttribute("class", cls);
		}
		// a match inside a folded row: the row says so
		if (searchRe)
			for (r = 0; r < N; r++)
				if (yOf[r] < 0 && / match/.test(labels[r].getAttribute("class"))) {
					var sr = shownRow(r), c = labels[sr].getAttribute("class");
					if (!/ match/.test(c)) labels[sr].setAttribute("class", c.replace(" dim", "") + " match");
				}
		status.textContent = searchRe ? "Matched: " + n + " of " + N + " threads" : " ";
		$("search").textContent = searchRe ? "Search: " + s : "Search";
		draw();
		remember();
	}

	// ---- a thread's flame graph, below the rows ----
	var flameFrames = null, flameTop = 0, flameBase = 0, chart = null;

	// The selected thread's flame chart: root at the top, x the timeline's
	// time; a frame runs on while the next sample or interval (within a pixel)
	// has the same frames down to it.
	function drawChart() {
		if (!chart) return;
		var ctx = chart.ctx, r = chart.r, fh = chart.fh, sc = BW / (v1 - v0), px = (v1 - v0) / BW;
		ctx.clearRect(0, 0, BW, Math.max(chart.depth, 1) * fh);
		ctx.font = (fs * 0.9) + "px " + getComputedStyle(document.documentElement).fontFamily;
		ctx.textBaseline = "middle";
		chart.runs = [];
		var name = [], start = new Float64Array(chart.depth + 1), end = new Float64Array(chart.depth + 1), offw = new Float64Array(chart.depth + 1), onw = new Float64Array(chart.depth + 1), open = 0;
		function close(d) {
			while (open > d) {
				open--;
				var x0 = (start[open] - v0) * sc, w = (end[open] - start[open]) * sc;
				if (x0 + w < 0 || x0 > BW) continue;
				if (x0 < 0) { w += x0; x0 = 0; }
				w = Math.max(Math.min(w, BW - x0), 0.5);
				var off = offw[open] > onw[open], h = hashName(name[open]);
				ctx.fillStyle = off ? "rgb(" + (40 + h % 40) + "," + (95 + h % 50) + "," + (190 + h % 50) + ")" :
					"rgb(" + (205 + h % 50) + "," + (60 + h % 110) + "," + (30 + h % 40) + ")";
				var y = open * fh;
				ctx.fillRect(x0, y, w, fh - 1);
				if (w > 24) {
					ctx.fillStyle = off ? "white" : "black";
					var room = Math.floor((w - 6) / (fs * 0.52)), text = window.lpRename.apply(name[open]);
					if (text.length > room) text = room >= 5 ? text.substring(0, room - 2) + ".." : "";
					if (text) ctx.fillText(text, x0 + 3, y + fh / 2);
				}
				chart.runs.push({ x: x0, y: y, w: w, name: name[open], start: start[open], end: end[open], off: off });
			}
		}
		// both lists in time order, from the first that ends in view
		var a = firstAfter(onAt[r], offAt[r], v0), b = firstAfter(offAt[r], onAt[r + 1], v0);
		var aEnd = offAt[r], bEnd = onAt[r + 1];
		while (a < aEnd || b < bEnd) {
			var k, isOff;
			if (b >= bEnd || (a < aEnd && iv[2 * a] <= iv[2 * b])) { k = a++; isOff = false; } else { k = b++; isOff = true; }
			var s0 = iv[2 * k], e0 = iv[2 * k + 1];
			if (s0 > v1) { if (isOff) b = bEnd; else a = aEnd; continue; }
			var fr = framesOf(r, ivStack[k]), d = 0;
			while (d < open && d < fr.length && name[d] === fr[d] && s0 - end[d] <= px) d++;
			close(d);
			for (var i = 0; i < d; i++) { end[i] = Math.max(end[i], e0); if (isOff) offw[i] += e0 - s0; else onw[i] += e0 - s0; }
			for (; d < fr.length && d < chart.depth; d++) {
				name[d] = fr[d]; start[d] = s0; end[d] = e0;
				offw[d] = isOff ? e0 - s0 : 0; onw[d] = isOff ? 0 : e0 - s0;
				open = d + 1;
			}
		}
		close(0);
	}

	function hashName(n) {
		var h = 0;
		for (var i = 0; i < n.length; i++) h = (h * 31 + n.charCodeAt(i)) >>> 0;
		return h;
	}

	function chartHover(p) {
		var x = p.x - X0, y = p.y - chart.y;
		for (var i = chart.runs.length - 1; i >= 0; i--) {
			var c = chart.runs[i];
			if (x >= c.x && x < c.x + Math.max(c.w, 2) && y >= c.y && y < c.y + chart.fh) {
				showTip(p, [window.lpRename.apply(c.name), (c.off ? "off-CPU " : "on-CPU ") + fmtT(c.end - c.start) + ": " + fmtT(c.start) + " \u2192 " + fmtT(c.end)]);
				return true;
			}
		}
		return false;
	}
	// The region whose band is under point p on row r (the top few pixels), or -1.
	function bandAt(r, p) {
		if (p.x < X0 || regAt[r] === regAt[r + 1]) return -1;
		var t = v0 + (p.x - X0) / BW * (v1 - v0), dy = p.y - yOf[r] - 1, slack = 2 * (v1 - v0) / BW;
		if (dy < -1 || dy > 4 * 3 + 1) return -1;
		var best = -1;
		for (var k = regAt[r]; k < regAt[r + 1]; k++)
			if (regS[k] - slack <= t && t < regE[k] + slack && Math.abs(dy - regD[k] * 3 - 1) <= 2 && (best < 0 || regD[k] > regD[best])) best = k;
		return best;
	}
	function select(r) {
		if (selected >= 0) labels[selected].setAttribute("class", labels[selected].getAttribute("class").replace(" selected", ""));
		selected = r;
		labels[r].setAttribute("class", labels[r].getAttribute("class") + " selected");
		flameFocus = null;
		flame();
		draw();
		remember();
	}

	function unescapeFrame(s) {
		return s.indexOf("%") < 0 ? s : s.replace(/%([0-9A-Fa-f]{2})/g, function (m, h) { return String.fromCharCode(parseInt(h, 16)); });
	}

	// A stack of a row as frame names, root first (split once, when first needed).
	function framesOf(r, k) {
		var e = stacks[r][k];
		if (!e) return [];
		if (!e[3]) e[3] = e[0] === "" ? [] : e[0].split(";").map(unescapeFrame);
		return e[3];
	}

	function flame() {
		while (flameG.firstChild) flameG.removeChild(flameG.firstChild);
		flameFrames = null;
		var t = rows[selected], list = stacks[selected], within = regionSel && regionSel.row === selected ? regionSel.k : -1;
		// a region's: each stack weighed by its intervals' time inside the region
		if (within >= 0) {
			var w = new Map(), s0 = regS[within], e0 = regE[within];
			for (var q = onAt[selected]; q < onAt[selected + 1]; q++) {
				var o = Math.min(e0, iv[2 * q + 1]) - Math.max(s0, iv[2 * q]);
				if (o <= 0) continue;
				var cur = w.get(ivStack[q]) || [0, 0];
				cur[q >= offAt[selected] ? 1 : 0] += o;
				w.set(ivStack[q], cur);
			}
			list = list.map(function (e, i) { var x = w.get(i) || [0, 0]; return [e[0], x[0], x[1], e[3]]; });
		}
		var root = { name: rowName(t) + (within >= 0 ? " in region " + rnames[regN[within]] : ""), on: 0, off: 0, kids: new Map() }, depth = 0;
		for (var i = 0; i < list.length; i++) {
			var node = root, parts = framesOf(selected, i);
			root.on += list[i][1]; root.off += list[i][2];
			for (var k = 0; k < parts.length; k++) {
				var name = parts[k], next = node.kids.get(name);
				if (!next) { next = { name: name, on: 0, off: 0, kids: new Map() }; node.kids.set(name, next); }
				next.on += list[i][1]; next.off += list[i][2];
				node = next;
			}
			depth = Math.max(depth, parts.length);
		}
		var fh = 16;
		// the flame chart first, on the timeline's axis, then the flame graph
		chart = { r: selected, top: rowsEnd + fs * 3, depth: depth, fh: fh, runs: [] };
		el("text", { x: 10, y: chart.top, "class": "head" }, flameG,
		   "Flame chart of " + rowName(t) + ": its samples and off-CPU intervals in time, on the axis above" +
		   (list.length ? "" : " (none)"));
		el("text", { x: 10, y: chart.top + fs * 1.6, "class": "hint" }, flameG, "red: on-CPU, blue: off-CPU");
		var fo = el("foreignObject", { x: X0, y: chart.top + fs * 0.6, width: BW, height: Math.max(depth, 1) * fh }, flameG);
		var cv = document.createElementNS(XNS, "canvas"), dpr = window.devicePixelRatio || 1;
		cv.width = Math.round(BW * dpr); cv.height = Math.round(Math.max(depth, 1) * fh * dpr);
		cv.style.width = BW + "px"; cv.style.height = Math.max(depth, 1) * fh + "px"; cv.style.display = "block";
		fo.appendChild(cv);
		chart.ctx = cv.getContext("2d");
		chart.ctx.scale(dpr, dpr);
		chart.y = chart.top + fs * 0.6;
		drawChart();
		var top = chart.y + Math.max(depth, 1) * fh + fs * 3;
		flameTop = top;
		el("text", { x: 10, y: top, "class": "head" }, flameG,
		   "Flame graph of " + rowName(t) + " (pid " + t.pid + ", tid " + t.tid + ")" +
		   (within >= 0 ? " in region " + rnames[regN[within]] + " (" + fmtT(regS[within]) + " \u2192 " + fmtT(regE[within]) + ")" : "") + ": " + fmtT(root.on) + " on-CPU, " +
		   fmtT(root.off) + " off-CPU" + (list.length ? "; click a frame to zoom, the bottom one to reset" : "; no samples"));
		var base = top + fs * 0.8 + (depth + 1) * fh;
		flameBase = base;
		var height = base + fs * 2;
		var svg = document.documentElement;
		svg.setAttribute("height", height);
		svg.setAttribute("viewBox", "0 0 " + W + " " + height);
		var focus = flameFocus || root, total = focus.on + focus.off;
		flameFrames = [];
		if (!total) return;
		var sc = (W - 20) / total;
		function walk(n, x, d, inFocus) {
			var w = (n.on + n.off) * sc;
			if (w < 0.3) return;
			var y = base - (d + 1) * fh, share = (n.off) / (n.on + n.off);
			var red = Math.round(220 - 170 * share), green = Math.round(90 + 20 * share), blue = Math.round(60 + 150 * share);
			var rc = el("rect", { x: x, y: y, width: Math.max(w - 0.5, 0.3), height: fh - 1, fill: "rgb(" + red + "," + green + "," + blue + ")" }, flameG);
			flameFrames.push({ n: n, x: x, y: y, w: w });
			rc.addEventListener("click", function (ev) { ev.stopPropagation(); flameFocus = n === root ? null : n; flame(); });
			var chars = Math.floor((w - 6) / (fs * 0.59));
			var shown = window.lpRename.apply(n.name);
			if (chars >= 3 && (shown.length <= chars || chars >= 5))
				el("text", { x: x + 3, y: y + fh - 4 }, flameG, shown.length <= chars ? shown : shown.substring(0, chars - 2) + "..");
			var kx = x, kids = Array.from(n.kids.values()).sort(function (a, b) { return a.name < b.name ? -1 : a.name > b.name; });
			for (var i = 0; i < kids.length; i++) { walk(kids[i], kx, d + 1); kx += (kids[i].on + kids[i].off) * sc; }
		}
		// the focused frame spans the width; its ancestors stay below it, at full width
		var path = [], n = focus;
		if (focus !== root) {
			(function find(node, trail) {
				if (node === focus) { path = trail.slice(); return true; }
				for (var c of node.kids.values()) { trail.push(node); if (find(c, trail)) return true; trail.pop(); }
				return false;
			})(root, []);
		}
		for (var a = 0; a < path.length; a++) {
			var y = base - (a + 1) * fh, anc = path[a];
			var rc = el("rect", { x: 10, y: y, width: W - 20, height: fh - 1, fill: "rgb(200,200,200)" }, flameG);
			rc.addEventListener("click", (function (m) { return function (ev) { ev.stopPropagation(); flameFocus = m === root ? null : m; flame(); }; })(anc));
			flameFrames.push({ n: anc, x: 10, y: y, w: W - 20 });
			el("text", { x: 13, y: y + fh - 4 }, flameG, window.lpRename.apply(anc.name));
		}
		walk(n, 10, path.length);
	}

	function flameHover(p) {
		for (var i = 0; i < flameFrames.length; i++) {
			var f = flameFrames[i];
			if (p.x >= f.x && p.x < f.x + f.w && p.y >= f.y && p.y < f.y + 16) {
				var tot = f.n.on + f.n.off, all = stacks[selected].reduce(function (s, x) { return s + x[1] + x[2]; }, 0);
				showTip(p, [window.lpRename.apply(f.n.name), fmtT(tot) + " (" + (100 * tot / Math.max(all, 1)).toFixed(2) + "% of the thread)",
					"on-CPU " + fmtT(f.n.on) + ", off-CPU " + fmtT(f.n.off)]);
				return;
			}
		}
		tip.style.display = "none";
	}

	// ---- the view in the address: ?s=REGEX&t=FROM,TO&row=N (or tid=TID)&rn=RULES ----
	function remember() {
		if (!window.history || !history.replaceState) return;
		var p = new URLSearchParams();
		if (searchText) p.set("s", searchText);
		window.lpRename.save(p);
		if (v0 > 0 || v1 < cfg.span) p.set("t", Math.round(v0) + "," + Math.round(v1));
		if (selected >= 0) p.set("row", selected);
		if (order !== "cpu") p.set("o", order);
		var q = p.toString();
		try { history.replaceState(null, "", q ? "?" + q : location.pathname); } catch (err) { }
	}
	function restore() {
		var p = new URLSearchParams(location.search), t = (p.get("t") || "").split(",");
		window.lpRename.load(p);
		if (p.get("o") === "start") { order = "start"; layout(); }
		if (p.get("s")) search(p.get("s"));
		if (t.length === 2 && isFinite(+t[0]) && isFinite(+t[1]) && +t[1] > +t[0]) setView(+t[0], +t[1]);
		var r = p.get("row"), tid = p.get("tid");
		// ?tid=N: that thread (the first band's), shown where it is
		if (r === null && tid !== null)
			for (var k = 0; k < N; k++) if (String(rows[k].tid) === tid) { r = k; break; }
		if (r !== null && +r >= 0 && +r < N) {
			unfoldTo(+r);
			select(+r);
			if (tid !== null && labels[+r].scrollIntoView) labels[+r].scrollIntoView({ block: "center" });
		}
	}

	// for tests and the curious: what is on screen
	window.lpTimeline = {
		ready: function () { return ready; },
		view: function () { return [v0, v1]; },
		// the colour drawn at a row's pixel column (x from the bars' left edge), mid-row
		pixel: function (row, x) { return window.lpTimeline.pixelAt(row, x, rowh / 2); },
		x: function (t) { return X0 + (t - v0) / (v1 - v0) * BW; },
		barsLeft: function () { return X0; },
		// a row's off-CPU intervals, [start, end] each
		offSpans: function (row) {
			var out = [];
			for (var k = offAt[row]; k < onAt[row + 1]; k++) out.push([iv[2 * k], iv[2 * k + 1]]);
			return out;
		},
		chartY: function () { return chart ? chart.y : null; },
		// the selected thread's flame chart as drawn: frames with their times
		chartRuns: function () {
			return chart ? chart.runs.map(function (c) { return { name: c.name, start: c.start, end: c.end, off: c.off, depth: c.y / chart.fh }; }) : [];
		},
		// the drawn width of the selected thread's flame graph frames named name, summed
		flameWidth: function (name) {
			var w = 0;
			for (var i = 0; flameFrames && i < flameFrames.length; i++) if (flameFrames[i].n.name === name) w += flameFrames[i].w;
			return w;
		},
		// the time under the frames named name in the thread's flame graph, ns
		flameTime: function (name) {
			var ns = 0;
			for (var i = 0; flameFrames && i < flameFrames.length; i++) {
				var n = flameFrames[i].n;
				if (n.name === name) ns += n.on + n.off;
			}
			return ns;
		},
		rowY: function (r) { return yOf[r]; },
		// a row's code regions: name, depth, start, end
		regions: function (r) {
			var out = [];
			for (var k = regAt[r]; k < regAt[r + 1]; k++) out.push({ name: rnames[regN[k]], depth: regD[k], start: regS[k], end: regE[k] });
			return out;
		},
		// the colour drawn at a row's pixel column, dy below the row's top
		pixelAt: function (row, x, dy) {
			var y = yOf[row] + dy;
			for (var i = 0; i < canvases.length; i++) {
				var c = canvases[i];
				if (y >= c.top && y < c.top + c.h && c.ctx) {
					var dpr = window.devicePixelRatio || 1;
					var d = c.ctx.getImageData(Math.round(x * dpr), Math.round((y - c.top) * dpr), 1, 1).data;
					return [d[0], d[1], d[2], d[3]];
				}
			}
			return null;
		},
		selected: function () { return selected; },
		// the rows shown, top to bottom: their depth, process or thread, CPU time with what is below
		shownRows: function () {
			return vis.map(function (r) { return { row: r, name: rowName(rows[r]), depth: rows[r].d, process: rows[r].tid === rows[r].pid, cpu: subCpu[r], folded: !!folded[r] }; });
		},
	};
	window.addEventListener("load", init);
})();
