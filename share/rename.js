// SPDX-License-Identifier: GPL-2.0-or-later
// Renaming frame labels, shared by lp-svg's flame graphs and its timeline:
// a list of rules "REGEX => REPLACEMENT" applied in order, each to the first
// match in a label (JavaScript's String.replace: $1, $& work), edited in a
// panel and kept in the address (?rn=...). Labels change on screen only;
// frames keep their place (to merge frames renamed alike, rename the folded
// stacks with sed before lp-svg: see lp-svg(1)).
"use strict";
window.lpRename = (function () {
	var NS = "http://www.w3.org/2000/svg", XNS = "http://www.w3.org/1999/xhtml";
	var rules = [], text = "", panel = null, button = null, changed = null, grown = null;

	// "REGEX => REPLACEMENT" per line; blank lines are skipped. {rules} or {error}.
	function parse(t) {
		var out = [], lines = t.split("\n");
		for (var i = 0; i < lines.length; i++) {
			var line = lines[i];
			if (/^\s*$/.test(line)) continue;
			var at = line.indexOf(" => ");
			if (at < 0) return { error: "line " + (i + 1) + ": no ' => ' between the regular expression and its replacement" };
			var src = line.slice(0, at), to = line.slice(at + 4), re;
			try { re = new RegExp(src); } catch (e) { return { error: "line " + (i + 1) + ": " + e.message }; }
			out.push({ src: src, to: to, re: re });
		}
		return { rules: out };
	}

	function set(t) {
		var p = parse(t);
		if (p.error) return p.error;
		rules = p.rules;
		text = rules.map(function (r) { return r.src + " => " + r.to; }).join("\n");
		if (button) button.textContent = rules.length ? "Rename (" + rules.length + ")" : "Rename";
		return null;
	}

	function apply(name) {
		for (var i = 0; i < rules.length; i++) name = name.replace(rules[i].re, rules[i].to);
		return name;
	}

	function close() {
		if (panel) panel.parentNode.removeChild(panel);
		panel = null;
		// a short picture grew to hold the panel: back to its size
		if (grown) {
			var svg = document.documentElement;
			svg.setAttribute("height", grown.h);
			svg.setAttribute("viewBox", grown.vb);
			grown = null;
		}
	}

	function el(ns, tag, attrs, parent, content) {
		var e = document.createElementNS(ns, tag);
		for (var k in attrs) e.setAttribute(k, attrs[k]);
		if (content !== undefined) e.textContent = content;
		if (parent) parent.appendChild(e);
		return e;
	}

	// The panel, where the picture is in view: a textarea of rules, Apply, Clear, Close.
	function open() {
		if (panel) { close(); return; }
		var svg = document.documentElement, pt = svg.createSVGPoint(), m = svg.getScreenCTM();
		pt.x = 20; pt.y = 40;
		if (m) pt = pt.matrixTransform(m.inverse());
		var vb = svg.viewBox.baseVal;
		if (vb && vb.height && pt.y + 240 > vb.height) {
			grown = { h: svg.getAttribute("height"), vb: svg.getAttribute("viewBox") };
			svg.setAttribute("height", Math.ceil(pt.y + 240));
			svg.setAttribute("viewBox", vb.x + " " + vb.y + " " + vb.width + " " + Math.ceil(pt.y + 240));
		}
		panel = el(NS, "foreignObject", { x: pt.x, y: pt.y, width: 560, height: 230, id: "rename-panel" }, svg);
		var div = el(XNS, "div", { style: "background: #fffff0; border: 1px solid #888; padding: 8px; font: 12px sans-serif;" }, panel);
		el(XNS, "div", {}, div, "Rename frames: one rule a line, REGEX => REPLACEMENT (first match in each label; $1 for groups)");
		var ta = el(XNS, "textarea", { rows: 7, cols: 70, spellcheck: "false", id: "rename-rules",
			style: "width: 540px; font: 12px monospace; margin: 6px 0;" }, div);
		ta.value = text;
		var err = el(XNS, "div", { id: "rename-error", style: "color: #b00000; min-height: 14px;" }, div);
		function btn(label, id, fn) {
			var b = el(XNS, "button", { id: id, style: "margin-right: 6px;" }, div, label);
			b.addEventListener("click", function (e) { e.stopPropagation(); fn(); });
		}
		btn("Apply", "rename-apply", function () {
			var e = set(ta.value);
			if (e) { err.textContent = e; return; }
			close();
			if (changed) changed();
		});
		btn("Clear", "rename-clear", function () { set(""); close(); if (changed) changed(); });
		btn("Close", "rename-close", close);
		// keys typed here are the panel's, not the picture's shortcuts
		ta.addEventListener("keydown", function (e) { e.stopPropagation(); if (e.key === "Escape") close(); });
		panel.addEventListener("mousedown", function (e) { e.stopPropagation(); });
		ta.focus();
	}

	return {
		apply: apply,
		active: function () { return rules.length > 0; },
		// the button, and what to do when the rules change
		attach: function (parent, x, y, onChange) {
			changed = onChange;
			button = el(NS, "text", { x: x, y: y, id: "rename", "class": "button" }, parent, "Rename");
			button.style.cursor = "pointer";
			button.addEventListener("click", function (e) { e.stopPropagation(); open(); });
			set(text);
		},
		// the address: ?rn=RULES
		save: function (params) { if (text) params.set("rn", text); },
		load: function (params) { var t = params.get("rn"); if (t) set(t); },
		set: set,
	};
})();
