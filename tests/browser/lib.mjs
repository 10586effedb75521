// Opens lp's pictures in headless Chromium (Debian's chromium) with playwright-core.
import { chromium } from 'playwright-core';
import { pathToFileURL } from 'node:url';

export async function open(file, query = '') {
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
			'--disable-component-update', '--disable-sync', '--no-first-run'],
	});
	const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
	const errors = [];
	page.on('pageerror', (e) => errors.push(String(e)));
	page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
	const t0 = Date.now();
	await page.goto(pathToFileURL(file).href + query);
	await page.waitForFunction(() => window.lpFlame && window.lpFlame.ready(), null, { timeout: 60000 });
	const loadMs = Date.now() - t0;
	return { browser, page, errors, loadMs };
}

// The drawn frames: name, x, width, kind.
export async function frames(page) {
	return page.$$eval('#frames > g', (gs) => gs.map((g) => {
		const r = g.querySelector('rect');
		const t = g.querySelector('text');
		return {
			i: g.getAttribute('data-i'),
			cls: g.getAttribute('class'),
			x: +r.getAttribute('x'),
			y: +r.getAttribute('y'),
			w: +r.getAttribute('width'),
			fill: r.getAttribute('fill'),
			text: t ? t.textContent : '',
		};
	}));
}

export function check(cond, what) {
	if (!cond) throw new Error('check failed: ' + what);
}
