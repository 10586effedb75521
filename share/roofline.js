// lp-svg --roofline: one ISA's roofs at a time, search over regions, and for
// each point the roofs above it at its intensity. lpRooflineData is written
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
	window.lpRoofline = { ready: true, showIsa: showIsa, search: search, explain: explain };
})();
