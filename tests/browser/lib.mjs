// SPDX-License-Identifier: GPL-2.0-or-later
// Opens lp's pictures in headless Chromium (Debian's chromium) with playwright-core.
import { chromium } from 'playwright-core';
import { pathToFileURL } from 'node:url';
import { mkdirSync } from 'node:fs';

// ready: what says the picture is drawn (the flame graph's by default).
export async function open(file, query = '', ready = () => window.lpFlame && window.lpFlame.ready()) {
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
			'--disable-component-update', '--disable-sync', '--no-first-run'],
	});
	const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
	const errors = [];
	page.on('pageerror', (e) => errors.push(String(e)));
	page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
	// a scenario that expects a prompt sets page.answer first
	page.on('dialog', (d) => {
		if (page.answer !== undefined) {
			d.accept(page.answer);
			page.answer = undefined;
		} else {
			errors.push('unexpected dialog: ' + d.message());
			d.dismiss();
		}
	});
	const t0 = Date.now();
	await page.goto(pathToFileURL(file).href + query);
	await page.waitForFunction(ready, null, { timeout: 60000 });
	return { browser, page, errors, loadMs: Date.now() - t0 };
}

// The drawn frames, in document order (text: the label as drawn, perhaps cut; name: whole).
export async function frames(page) {
	return page.$$eval('#frames > g', (gs) => gs.map((g) => {
		const r = g.querySelector('rect');
		const t = g.querySelector('text');
		return {
			i: g.getAttribute('data-i'),
			name: window.lpFlame && window.lpFlame.name ? window.lpFlame.name(+g.getAttribute('data-i')) : undefined,
			cls: g.getAttribute('class'),
			x: +r.getAttribute('x'),
			y: +r.getAttribute('y'),
			w: +r.getAttribute('width'),
			fill: r.getAttribute('fill'),
			text: t ? t.textContent : '',
		};
	}));
}

export function byText(fs, text) {
	return fs.filter((f) => f.text === text);
}

export async function shot(page, name) {
	const dir = process.env.LP_SHOTS || '/tmp/lp-screenshots';
	mkdirSync(dir, { recursive: true });
	await page.screenshot({ path: `${dir}/${name}.png` });
}

export function check(cond, what) {
	if (!cond) throw new Error('check failed: ' + what);
}

export function near(a, b, what, eps = 0.15) {
	check(Math.abs(a - b) <= eps, `${what}: ${a} is not ${b}`);
}

// Runs one scenario: prints what failed and exits 1, so bats sees it.
export async function scenario(fn) {
	try {
		await fn();
	} catch (e) {
		console.error(e.stack || String(e));
		process.exit(1);
	}
	process.exit(0);
}
