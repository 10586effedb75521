// SPDX-License-Identifier: GPL-2.0-or-later
// lp-svg's flame graph: zoom, search, tooltips, drawing at full detail from
// the data embedded in the file (a zlib-compressed JSON tree, base64 in
// <metadata id="lp-data">). Without scripts the file shows the frames drawn
// by lp-svg; with them, this redraws any zoom level at full detail.
"use strict";
(function () {
	var NS = "http://www.w3.org/2000/svg";
	var cfg, names, colors, notes, N, nameOf, parent, depth, end, self0, self1, tot0, tot1, wv, xs;
	var framesG, details, unzoomBtn, searchBtn, icBtn, matchedText, tip;
	var focus = 0, lo = 0, hi = 0, ranged = false;
	var searchText = null, ignoreCase = false;

	function $(id) { return document.getElementById(id); }

	function init() {
		framesG = $("frames"); details = $("details"); unzoomBtn = $("unzoom");
		searchBtn = $("search"); icBtn = $("ignorecase"); matchedText = $("matched");
		var meta = $("lp-data");
		if (!meta || !framesG || typeof DecompressionStream === "undefined") return;
		var bin = atob(meta.textContent.replace(/\s+/g, ""));
		var bytes = new Uint8Array(bin.length);
		for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
		var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
		new Response(stream).arrayBuffer().then(function (buf) {
			if (window.performance && performance.mark) performance.mark("lp-inflated");
			var all = new Uint8Array(buf);
			var hlen = all[0] | all[1] << 8 | all[2] << 16 | all[3] << 24;
			var head = JSON.parse(new TextDecoder().decode(all.subarray(4, 4 + hlen)));
			load(head, all, 4 + hlen);
		});
	}

	// Node data in preorder, a column per field (see lp-svg's flamesvg.c):
	// 2-bit rank codes, rare ranks, new names, 4-bit shapes (children count,
	// which self values are not 0), many-children counts, self values; the
	// varints LEB128. A name is its rank among the names seen under the
	// parent's name (0: new there). Decoded and linked in one pass, then
	// summed up in another.
	function load(d, bytes, at) {
		cfg = d.cfg; names = d.names; colors = d.colors; notes = d.notes || {};
		N = d.count;
		nameOf = new Int32Array(N); parent = new Int32Array(N); depth = new Int32Array(N);
		end = new Int32Array(N); self0 = new Float64Array(N); self1 = new Float64Array(N);
		tot0 = new Float64Array(N); tot1 = new Float64Array(N); wv = new Float64Array(N);
		xs = new Float64Array(N);
		var pos = [], i, c, x;
		for (c = 0; c < d.cols.length; c++) { pos.push(at); at += d.cols[c]; }
		var RANK = 0, RARE = 1, NEWNAME = 2, SHAPE = 3, KIDS = 4, SELF0 = 5, SELF1 = 6;
		var rankAt = pos[RANK], shapeAt = pos[SHAPE];
		function next(col) {
			var p = pos[col], b = bytes[p++], v = b & 127, mul = 128;
			while (b & 128) { b = bytes[p++]; v += (b & 127) * mul; mul *= 128; }
			pos[col] = p;
			return v;
		}
		var callees = new Array(names.length), rem = new Int32Array(N), stack = new Int32Array(N + 1), top = 0;
		for (i = 0; i < N; i++) {
			if (top) {
				var p = stack[top - 1], pn = nameOf[p], list = callees[pn];
				var r = bytes[rankAt + ((i - 1) >> 2)] >> (((i - 1) & 3) << 1) & 3;
				r = r === 3 ? next(RARE) : r + 1;
				if (r === 0) {
					x = next(NEWNAME);
					if (list) list.push(x); else callees[pn] = [x];
				} else {
					x = list[r - 1];
				}
				nameOf[i] = x;
				parent[i] = p; depth[i] = depth[p] + 1; rem[p]--;
			} else {
				parent[i] = -1;
			}
			var shape = bytes[shapeAt + (i >> 1)] >> ((i & 1) << 2) & 15;
			rem[i] = (shape & 3) === 3 ? next(KIDS) : shape & 3;
			self0[i] = shape & 4 ? next(SELF0) : 0;
			self1[i] = shape & 8 ? next(SELF1) : 0;
			if (rem[i] > 0) {
				stack[top++] = i;
			} else {
				end[i] = i + 1;
				while (top && rem[stack[top - 1]] === 0) end[stack[--top]] = i + 1;
			}
		}
		var diff = cfg.coloring === "diff";
		for (i = N - 1; i >= 0; i--) {
			tot0[i] += self0[i]; tot1[i] += self1[i];
			wv[i] = diff ? tot1[i] : tot0[i] + tot1[i];
			if (parent[i] >= 0) { tot0[parent[i]] += tot0[i]; tot1[parent[i]] += tot1[i]; }
		}
		for (i = 0; i < N; i++) {
			x = xs[i];
			for (c = i + 1; c < end[i]; c = end[c]) { xs[c] = x; x += wv[c]; }
		}
		tip = document.createElementNS(NS, "g");
		tip.setAttribute("id", "tip");
		tip.style.display = "none";
		tip.appendChild(document.createElementNS(NS, "rect"));
		tip.appendChild(document.createElementNS(NS, "text"));
		framesG.parentNode.appendChild(tip);
		framesG.addEventListener("click", onClick);
		framesG.addEventListener("mousemove", onMove);
		framesG.addEventListener("mouseleave", function () { showInfo(null); });
		unzoomBtn.addEventListener("click", function () { zoom(0); });
		searchBtn.addEventListener("click", function () { searchPrompt(); });
		icBtn.addEventListener("click", function () { ignoreCase = !ignoreCase; applySearch(); toURL(); });
		window.addEventListener("keydown", onKey);
		window.lpRename.attach(searchBtn.parentNode, +searchBtn.getAttribute("x") - 90, +searchBtn.getAttribute("y"),
			function () { render(); toURL(); });
		if (window.performance && performance.mark) performance.mark("lp-parsed");
		fromURL();
		// opened on its own and taller than the window: at its base, where the roots are (its top is
		// the deepest stacks' few frames); inverted, the roots are at the top already
		var doc = document.documentElement;
		if (!cfg.inverted && window.top === window && doc.scrollHeight > window.innerHeight)
			window.scrollTo(0, doc.scrollHeight);
		if (window.performance && performance.mark) performance.mark("lp-drawn");
	}

	// --- values and names ---

	function value(v) { return v * cfg.scale; }
	function fmtValue(v) {
		v = value(v);
		if (cfg.unit === "ns") {
			if (v < 1e3) return v.toFixed(0) + " ns";
			if (v < 1e6) return (v / 1e3).toFixed(1) + " \u00b5s";
			if (v < 1e9) return (v / 1e6).toFixed(2) + " ms";
			return (v / 1e9).toFixed(3) + " s";
		}
		var s = String(Math.round(v)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
		return s + " " + (cfg.unit || cfg.countname);
	}
	function pct(a, b) { return b > 0 ? (100 * a / b).toFixed(2) + "%" : "0.00%"; }
	function stripAnnotation(s) { return s.replace(/_\[[kwij]\]$/, ""); }
	function original(i) { return i === 0 ? "all" : stripAnnotation(names[nameOf[i]]); }
	function label(i) { return i === 0 ? "all" : window.lpRename.apply(original(i)); }

	function info(i) {
		var total = cfg.total / cfg.scale, s = label(i) + " (" + fmtValue(wv[i]) + ", " + pct(wv[i], total);
		if (label(i) !== original(i)) s += ", renamed from " + original(i);
		if (parent[i] >= 0) s += ", " + pct(wv[i], wv[parent[i]]) + " of parent";
		if (cfg.coloring === "onoff")
			s += "; on-CPU " + fmtValue(tot0[i]) + ", off-CPU " + fmtValue(tot1[i]);
		var note = i > 0 && Object.prototype.hasOwnProperty.call(notes, names[nameOf[i]]) ? notes[names[nameOf[i]]] : "";
		if (note)
			s += "; " + note;
		if (cfg.coloring === "diff") {
			var d = cfg.negate ? tot0[i] - tot1[i] : tot1[i] - tot0[i];
			s += "; before " + fmtValue(tot0[i]) + ", after " + fmtValue(tot1[i]) + ", " +
				(d > 0 ? "+" : "") + pct(d, total);
		}
		return s + ")";
	}

	// --- colours, as lp-svg computes them ---

	function hex(c) { return "#" + (0x1000000 + c).toString(16).slice(1); }
	function color(i) {
		var nm = names[nameOf[i]];
		if (nm === "--") return "#a0a0a0";
		if (nm === "-") return "#c8c8c8";
		if (cfg.coloring === "diff") {
			var d = self1[i] - self0[i], max = cfg.maxdelta || 1, r = 255, g = 255, b = 255;
			if (cfg.negate) d = -d;
			if (d > 0) g = b = Math.floor(210 * (max - d) / max);
			else if (d < 0) r = g = Math.floor(210 * (max + d) / max);
			return hex(r << 16 | g << 8 | b);
		}
		var c = colors[nameOf[i]];
		if (cfg.coloring === "onoff") {
			var all = tot0[i] + tot1[i], off = all > 0 ? tot1[i] / all : 0, blue = [90, 110, 230];
			var cc = [c >> 16 & 255, c >> 8 & 255, c & 255];
			for (var k = 0; k < 3; k++) cc[k] = Math.floor(cc[k] + (blue[k] - cc[k]) * off + 0.5);
			c = cc[0] << 16 | cc[1] << 8 | cc[2];
		}
		return hex(c);
	}

	// --- drawing ---

	function frameY(d) {
		if (cfg.inverted) return cfg.ypad1 + d * cfg.fh;
		return cfg.height - cfg.ypad2 - (d + 1) * cfg.fh + 1;
	}

	function esc(s) {
		return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
	}

	// One frame as markup: building one string and parsing it once is much
	// faster than creating elements one by one.
	function frameMarkup(out, x1, w, d, fill, text, attrs) {
		var y = frameY(d), h = cfg.fh - 1, chars = Math.floor(w / (cfg.fs * cfg.fw));
		var s = "<g " + attrs + "><rect x=\"" + x1.toFixed(1) + "\" y=\"" + y.toFixed(1) +
			"\" width=\"" + w.toFixed(1) + "\" height=\"" + h.toFixed(1) + "\" fill=\"" + fill + "\"/>";
		// a label cut keeps three characters at least, or there is none (lp-svg writes them so too)
		var t = chars < 3 ? "" : text.length <= chars ? text : chars >= 5 ? text.slice(0, chars - 2) + ".." : "";
		if (t) {
			s += "<text x=\"" + (x1 + 3).toFixed(1) + "\" y=\"" + (3 + y + h / 2).toFixed(1) + "\">" +
				esc(t) + "</text>";
		}
		out.push(s + "</g>");
	}

	function render() {
		var out = [];
		var full = cfg.width - 2 * cfg.xpad;
		var span = (focus === 0 && !ranged) ? cfg.total / cfg.scale : hi - lo;
		var scale = span > 0 ? full / span : 0;
		var a, i, c;
		var chain = [];
		for (a = parent[focus]; a >= 0; a = parent[a]) chain.push(a);
		for (i = chain.length - 1; i >= 0; i--)
			frameMarkup(out, cfg.xpad, full, depth[chain[i]], color(chain[i]), label(chain[i]),
				"class=\"parent\" data-i=\"" + chain[i] + "\"");
		var stack = [focus];
		while (stack.length) {
			var n = stack.pop(), runX = 0, run = 0, runCount = 0;
			var nx = Math.max(xs[n], lo), nw = Math.min(xs[n] + wv[n], hi) - nx;
			var drawnAsParent = ranged && n === focus;
			frameMarkup(out, cfg.xpad + (nx - lo) * scale, nw * scale, depth[n], color(n), label(n),
				"class=\"" + (drawnAsParent ? "parent" : "f") + "\" data-i=\"" + n + "\"");
			for (c = n + 1; ; c = end[c]) {
				var child = c < end[n], v = child ? wv[c] : 0;
				var visible = child && v > 0 && xs[c] < hi && xs[c] + v > lo;
				var wide = visible && v * scale >= cfg.minpx;
				if ((wide || !child) && runCount > 0) {
					if (run * scale >= cfg.minpx)
						frameMarkup(out, cfg.xpad + (runX - lo) * scale, run * scale, depth[n] + 1,
							"#bebebe", "(compressed)",
							"class=\"compressed\" data-p=\"" + n + "\" data-lo=\"" + runX +
							"\" data-hi=\"" + (runX + run) + "\" data-n=\"" + runCount + "\"");
					run = 0; runCount = 0;
				}
				if (!child) break;
				if (wide) stack.push(c);
				else if (visible) {
					if (runCount++ === 0) runX = xs[c];
					run += v;
				}
			}
		}
		framesG.innerHTML = out.join("");
		unzoomBtn.setAttribute("class", focus === 0 && !ranged ? "hide" : "");
		applySearch();
	}

	function zoom(i) {
		focus = i; ranged = false; lo = xs[i]; hi = xs[i] + wv[i];
		render(); toURL();
	}

	function zoomRange(p, a, b) {
		focus = p; ranged = true; lo = a; hi = b;
		render(); toURL();
	}

	// --- events ---

	function frameOf(el) {
		while (el && el !== framesG && !(el.getAttribute && (el.hasAttribute("data-i") || el.hasAttribute("data-p"))))
			el = el.parentNode;
		return el && el !== framesG ? el : null;
	}

	function onClick(e) {
		var g = frameOf(e.target);
		if (!g) return;
		if (g.hasAttribute("data-p"))
			zoomRange(+g.getAttribute("data-p"), +g.getAttribute("data-lo"), +g.getAttribute("data-hi"));
		else
			zoom(+g.getAttribute("data-i"));
	}

	function showInfo(text, e) {
		details.textContent = text || " ";
		if (!text) { tip.style.display = "none"; return; }
		var t = tip.lastChild, r = tip.firstChild;
		t.textContent = text;
		tip.style.display = "";
		var bb = t.getBBox(), x = e.clientX + 12, y = e.clientY + 20;
		var svgEl = document.documentElement, w = cfg.width;
		if (svgEl.getScreenCTM) {
			var pt = svgEl.createSVGPoint ? svgEl.createSVGPoint() : null, m = svgEl.getScreenCTM();
			if (pt && m) { pt.x = e.clientX; pt.y = e.clientY; pt = pt.matrixTransform(m.inverse()); x = pt.x + 12; y = pt.y + 20; }
		}
		if (x + bb.width + 8 > w) x = Math.max(0, w - bb.width - 8);
		t.setAttribute("x", x + 4); t.setAttribute("y", y + cfg.fs);
		r.setAttribute("x", x); r.setAttribute("y", y);
		r.setAttribute("width", bb.width + 8); r.setAttribute("height", cfg.fs + 8);
	}

	function onMove(e) {
		var g = frameOf(e.target);
		if (!g) { showInfo(null); return; }
		if (g.hasAttribute("data-p")) {
			var v = +g.getAttribute("data-hi") - +g.getAttribute("data-lo");
			showInfo("(compressed) " + g.getAttribute("data-n") + " frames (" + fmtValue(v) + ", " +
				pct(v, cfg.total / cfg.scale) + "), click to expand", e);
		} else {
			showInfo((cfg.nametype ? cfg.nametype + " " : "") + info(+g.getAttribute("data-i")), e);
		}
	}

	function onKey(e) {
		if ((e.ctrlKey || e.metaKey) && (e.key === "f" || e.key === "F") || e.key === "F3") {
			e.preventDefault();
			searchPrompt();
		} else if (e.key === "Escape") {
			if (searchText !== null) { searchText = null; applySearch(); toURL(); }
			else zoom(0);
		}
	}

	// --- search ---

	function searchPrompt() {
		var s = window.prompt("Search for (regular expression):", searchText || "");
		if (s === null) return;
		searchText = s === "" ? null : s;
		applySearch(); toURL();
	}

	function applySearch() {
		icBtn.setAttribute("class", ignoreCase ? "show" : "");
		var re = null, i;
		if (searchText !== null) {
			try { re = new RegExp(searchText, ignoreCase ? "i" : ""); } catch (err) { re = null; }
		}
		var gs = framesG.children;
		for (i = 0; i < gs.length; i++) {
			var g = gs[i], r = g.firstChild, n = g.getAttribute("data-i");
			if (n === null) continue;
			var hit = re !== null && re.test(label(+n));
			if (hit) {
				if (!r.hasAttribute("data-fill")) r.setAttribute("data-fill", r.getAttribute("fill"));
				r.setAttribute("fill", "rgb(230,0,230)");
			} else if (r.hasAttribute("data-fill")) {
				r.setAttribute("fill", r.getAttribute("data-fill"));
				r.removeAttribute("data-fill");
			}
		}
		if (re === null) {
			searchBtn.setAttribute("class", "");
			searchBtn.textContent = "Search";
			matchedText.textContent = " ";
			return;
		}
		// the share of all frames whose name matches, counting nested matches once
		var sum = 0;
		for (i = 0; i < N;) {
			if (re.test(label(i))) { sum += wv[i]; i = end[i]; } else i++;
		}
		searchBtn.setAttribute("class", "show");
		searchBtn.textContent = "Reset Search";
		matchedText.textContent = "Matched: " + pct(sum, cfg.total / cfg.scale);
	}

	// --- the URL keeps zoom and search, as flamegraph.pl does ---

	function toURL() {
		if (!window.history || !history.replaceState) return;
		var p = new URLSearchParams();
		if (focus !== 0 || ranged) p.set("x", focus);
		if (ranged) p.set("r", lo + "," + hi);
		if (searchText !== null) p.set("s", searchText);
		if (ignoreCase) p.set("i", "1");
		window.lpRename.save(p);
		var q = p.toString();
		try { history.replaceState(null, "", q ? "?" + q : location.pathname); } catch (err) { }
	}

	function fromURL() {
		var p = new URLSearchParams(location.search), x = +(p.get("x") || 0);
		searchText = p.get("s");
		ignoreCase = p.get("i") === "1";
		window.lpRename.load(p);
		if (!(x >= 0 && x < N)) x = 0;
		var r = (p.get("r") || "").split(",");
		if (r.length === 2 && isFinite(+r[0]) && isFinite(+r[1]) && +r[1] > +r[0]) {
			focus = x; ranged = true; lo = +r[0]; hi = +r[1];
		} else {
			focus = x; ranged = false; lo = xs[x]; hi = xs[x] + wv[x];
		}
		render();
	}

	window.addEventListener("load", init);
	// The stacks the data holds as folded lines, sorted: what the tests compare with the input.
	function folded() {
		var out = [], path = [];
		for (var i = 1; i < N; i++) {
			path.length = depth[i] - 1;
			path.push(names[nameOf[i]]);
			if (self0[i] || self1[i]) out.push(path.join(";") + " " + value(self0[i] + self1[i]));
		}
		return out.sort();
	}

	window.lpFlame = { zoom: function (i) { zoom(i); }, ready: function () { return N > 0; }, folded: folded,
		name: function (i) { return label(i); } };
})();
