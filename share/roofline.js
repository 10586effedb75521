// SPDX-License-Identifier: GPL-2.0-or-later
// lp-svg --roofline: one ISA's roofs at a time, search over regions, for
// each point the roofs above it at its intensity, and zoom (drag a box). lpRooflineData is written
// before this script by lp-svg.
(function () {
	'use strict';
	var data = lpRooflineData;
	var svg = document.documentElement;
	var params = new URLSearchParams(location.search);
	var current = null, pinned = null, pattern = null;

	function si(v) {
		var prefixes = ['', 'k', 'M', 'G', 'T', 'P'], k = 0;
		while (v >= 1000 && k < 5) { v /= 1000; k++; }
		return (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)) + ' ' + prefixes[k];
	}

	function keepUrl() {
		if (!history.replaceState) return;
		var p = new URLSearchParams(location.search);
		if (current !== null) p.set('isa', current); else p.delete('isa');
		if (pattern) p.set('s', pattern.source); else p.delete('s');
		// (view is set once the zoom below is ready)
		if (view && view !== full) p.set('z', [view.x0, view.x1, view.y0, view.y1].map(function (v) { return v.toFixed(4); }).join(','));
		else p.delete('z');
		var q = p.toString();
		history.replaceState(null, '', location.pathname + (q ? '?' + q : '') + location.hash);
	}

	function showIsa(isa) {
		current = isa;
		svg.querySelectorAll('g.isa').forEach(function (g) {
			g.setAttribute('display', g.getAttribute('data-isa') === isa ? 'inline' : 'none');
		});
		svg.querySelectorAll('.isa-button').forEach(function (b) {
			b.classList.toggle('on', b.getAttribute('data-isa') === isa);
		});
		keepUrl();
		if (pinned !== null) explain(pinned);
	}

	// The roofs of the shown ISA at the point's intensity: what it could reach, and how far it is from it.
	function explain(i) {
		var p = data.points[i], ai = p.flops / p.bytes, perf = p.flops / p.seconds;
		var top = 0, lines = [];
		data.roofs.forEach(function (r) { if (!r.memory && r.isa === current) top = Math.max(top, r.value); });
		var above = null;
		data.roofs.forEach(function (r) {
			if (!r.memory || r.isa !== current) return;
			var reach = top > 0 ? Math.min(r.value * ai, top) : r.value * ai;
			if (reach >= perf && (above === null || reach < above.reach)) above = { name: r.name, reach: reach };
		});
		var first = p.name.split(';').pop() + ': ' + si(perf) + 'FLOP/s at ' + ai.toPrecision(3) + ' FLOP/byte, ' +
			p.seconds.toPrecision(3) + ' s';
		var second = above ? 'Below the ' + above.name + ' roof (' + si(above.reach) + 'FLOP/s here): at ' +
			(100 * perf / above.reach).toFixed(0) + '% of it' : 'Above every memory roof of ' + (current || 'this machine');
		if (p.how) second += ' \u2014 ' + p.how;
		document.getElementById('details').textContent = first;
		document.getElementById('details2').textContent = second;
	}

	function search(source) {
		pattern = source ? new RegExp(source) : null;
		svg.querySelectorAll('g.point').forEach(function (g) {
			var name = data.points[+g.getAttribute('data-i')].name;
			var hit = pattern !== null && pattern.test(name);
			g.classList.toggle('match', hit);
			g.classList.toggle('dim', pattern !== null && !hit);
		});
		document.getElementById('search').textContent = pattern ? 'Reset search' : 'Search';
		keepUrl();
	}

	svg.querySelectorAll('.isa-button').forEach(function (b) {
		b.addEventListener('click', function () { showIsa(b.getAttribute('data-isa')); });
	});
	svg.querySelectorAll('g.point').forEach(function (g) {
		var i = +g.getAttribute('data-i');
		g.addEventListener('mouseover', function () { explain(i); });
		g.addEventListener('mouseout', function () { if (pinned !== null) explain(pinned); });
		g.addEventListener('click', function () {
			if (pinned !== null) svg.querySelector('g.point[data-i="' + pinned + '"]').classList.remove('pinned');
			pinned = pinned === i ? null : i;
			if (pinned !== null) { g.classList.add('pinned'); explain(i); }
		});
	});
	document.getElementById('search').addEventListener('click', function () {
		if (pattern) { search(null); return; }
		var s = prompt('Search regions (regular expression):', '');
		if (s) {
			try { search(s); } catch (e) { alert('Not a regular expression: ' + e.message); }
		}
	});
	var shown = svg.querySelector('.isa-button.on');
	var wanted = params.get('isa');
	var known = Array.prototype.some.call(svg.querySelectorAll('.isa-button'), function (b) {
		return b.getAttribute('data-isa') === wanted;
	});
	showIsa(known ? wanted : shown ? shown.getAttribute('data-isa') : null);
	if (params.get('s')) {
		try { search(params.get('s')); } catch (e) { /* a bad pattern in the URL: ignored */ }
	}

	// --- zoom: drag a rectangle over the plot; Reset zoom, Escape or a double click go back ---
	var NS = 'http://www.w3.org/2000/svg', ax = data.axes;
	var full = { x0: ax.x0, x1: ax.x1, y0: ax.y0, y1: ax.y1 }, view = full;
	var axesG = document.getElementById('axes'), unzoom = document.getElementById('unzoom');

	function px(x) { return ax.left + (Math.log10(x) - view.x0) / (view.x1 - view.x0) * ax.width; }
	function py(y) { return ax.top + ax.height - (Math.log10(y) - view.y0) / (view.y1 - view.y0) * ax.height; }
	function num(el, name) { return +el.getAttribute(name); }
	function set(el, attrs) { for (var k in attrs) el.setAttribute(k, typeof attrs[k] === 'number' ? attrs[k].toFixed(1) : attrs[k]); }

	// Tick values in [10^lo, 10^hi]: decades, 1-2-5 steps when less than two
	// decades show, and evenly spaced round values when even those are too few.
	function ticks(lo, hi) {
		var out = [], steps = hi - lo >= 2 ? [1] : [1, 2, 5];
		for (var e = Math.floor(lo); e <= Math.ceil(hi); e++)
			steps.forEach(function (m) {
				var v = m * Math.pow(10, e), l = Math.log10(v);
				if (l >= lo - 1e-9 && l <= hi + 1e-9) out.push(v);
			});
		if (out.length >= 3) return out;
		var a = Math.pow(10, lo), b = Math.pow(10, hi), raw = (b - a) / 5, unit = Math.pow(10, Math.floor(Math.log10(raw)));
		var step = [1, 2, 5, 10].map(function (m) { return m * unit; }).find(function (st) { return st >= raw; });
		out = [];
		for (var v = Math.ceil(a / step) * step; v <= b * (1 + 1e-12); v += step) out.push(+v.toPrecision(12));
		return out;
	}

	function drawTicks() {
		axesG.querySelectorAll('line.grid, text.tick').forEach(function (e) { e.remove(); });
		var label = axesG.querySelector('text.axis');
		function tick(grid, at, text) {
			var line = document.createElementNS(NS, 'line'), t = document.createElementNS(NS, 'text');
			grid['class'] = 'grid';
			at['class'] = 'tick';
			set(line, grid);
			set(t, at);
			t.textContent = text;
			axesG.insertBefore(line, label);
			axesG.insertBefore(t, label);
		}
		ticks(view.x0, view.x1).forEach(function (v) {
			var x = px(v);
			tick({ x1: x, y1: ax.top, x2: x, y2: ax.top + ax.height },
			     { x: x, y: ax.top + ax.height + 16, 'text-anchor': 'middle' }, String(+v.toPrecision(3)));
		});
		ticks(view.y0, view.y1).forEach(function (v) {
			var y = py(v);
			tick({ x1: ax.left, y1: y, x2: ax.left + ax.width, y2: y },
			     { x: ax.left - 6, y: y + 4, 'text-anchor': 'end' }, si(v) + 'FLOP/s');
		});
	}

	// Everything at its place for the current view: roofs, their labels, points.
	function place() {
		drawTicks();
		svg.querySelectorAll('g.isa').forEach(function (g) {
			var lines = g.querySelectorAll('line.roof'), labels = g.querySelectorAll('text.roof-label');
			lines.forEach(function (l, k) {
				var x1 = num(l, 'data-x1'), y1 = num(l, 'data-y1'), x2 = num(l, 'data-x2'), y2 = num(l, 'data-y2');
				set(l, { x1: px(x1), y1: py(y1), x2: px(x2), y2: py(y2) });
				var label = labels[k];
				if (!label) return;
				if (l.classList.contains('compute')) {
					set(label, { x: ax.left + ax.width - 4, y: py(y1) + num(label, 'data-dy') });
					return;
				}
				// a memory roof's label: along the part of its slope that shows, turned with it
				var lo = Math.max(Math.log10(x1), view.x0, Math.log10(Math.pow(10, view.y0) / (y1 / x1)));
				var hi = Math.min(Math.log10(x2), view.x1, Math.log10(Math.pow(10, view.y1) / (y1 / x1)));
				if (hi <= lo) { label.setAttribute('display', 'none'); return; }
				label.removeAttribute('display');
				var lx = Math.pow(10, lo + (hi - lo) * num(label, 'data-along')), ly = lx * y1 / x1;
				var ang = Math.atan2(py(y2) - py(y1), px(x2) - px(x1)) * 180 / Math.PI;
				label.setAttribute('transform', 'translate(' + px(lx).toFixed(1) + ',' + py(ly).toFixed(1) + ') rotate(' + ang.toFixed(1) + ')');
			});
		});
		svg.querySelectorAll('g.point').forEach(function (g) {
			var p = data.points[+g.getAttribute('data-i')], c = g.querySelector('circle'), t = g.querySelector('text');
			var x = px(p.flops / p.bytes), y = py(p.flops / p.seconds), r = num(c, 'r');
			set(c, { cx: x, cy: y });
			set(t, { x: x + r + 3, y: y + 4 });
			var inside = x >= ax.left - r && x <= ax.left + ax.width + r && y >= ax.top - r && y <= ax.top + ax.height + r;
			if (inside) g.removeAttribute('display'); else g.setAttribute('display', 'none');
		});
		var zoomed = view !== full;
		if (zoomed) unzoom.removeAttribute('display'); else unzoom.setAttribute('display', 'none');
	}

	function zoomTo(v) {
		view = v || full;
		place();
		keepUrl();
	}

	// where the pointer is, in the SVG's own units
	function at(ev) {
		var pt = svg.createSVGPoint();
		pt.x = ev.clientX; pt.y = ev.clientY;
		return pt.matrixTransform(svg.getScreenCTM().inverse());
	}
	function inPlot(q) { return q.x >= ax.left && q.x <= ax.left + ax.width && q.y >= ax.top && q.y <= ax.top + ax.height; }
	function clampX(x) { return Math.min(Math.max(x, ax.left), ax.left + ax.width); }
	function clampY(y) { return Math.min(Math.max(y, ax.top), ax.top + ax.height); }

	var band = null, from = null;
	svg.addEventListener('mousedown', function (ev) {
		var q = at(ev);
		if (ev.button !== 0 || !inPlot(q)) return;
		from = q;
		band = document.createElementNS(NS, 'rect');
		band.setAttribute('id', 'zoom-band');
		set(band, { x: q.x, y: q.y, width: 0, height: 0 });
		svg.appendChild(band);
		ev.preventDefault();
	});
	svg.addEventListener('mousemove', function (ev) {
		if (!band) return;
		var q = at(ev), x = clampX(q.x), y = clampY(q.y);
		set(band, { x: Math.min(x, from.x), y: Math.min(y, from.y), width: Math.abs(x - from.x), height: Math.abs(y - from.y) });
	});
	svg.addEventListener('mouseup', function (ev) {
		if (!band) return;
		var q = at(ev), x = clampX(q.x), y = clampY(q.y);
		band.remove();
		band = null;
		// a click (pins a point) is not a zoom
		if (Math.abs(x - from.x) < 6 || Math.abs(y - from.y) < 6) return;
		function lx(p) { return view.x0 + (p - ax.left) / ax.width * (view.x1 - view.x0); }
		function ly(p) { return view.y0 + (ax.top + ax.height - p) / ax.height * (view.y1 - view.y0); }
		zoomTo({ x0: lx(Math.min(x, from.x)), x1: lx(Math.max(x, from.x)), y0: ly(Math.max(y, from.y)), y1: ly(Math.min(y, from.y)) });
	});
	svg.addEventListener('dblclick', function (ev) { if (inPlot(at(ev))) zoomTo(null); });
	unzoom.addEventListener('click', function () { zoomTo(null); });
	window.addEventListener('keydown', function (ev) { if (ev.key === 'Escape') zoomTo(null); });
	var z = (params.get('z') || '').split(',').map(Number);
	if (z.length === 4 && z.every(isFinite) && z[1] > z[0] && z[3] > z[2])
		zoomTo({ x0: z[0], x1: z[1], y0: z[2], y1: z[3] });

	window.lpRoofline = { ready: true, showIsa: showIsa, search: search, explain: explain, zoom: zoomTo,
			      view: function () { return view; } };
})();
