// SPDX-License-Identifier: GPL-2.0-or-later
// Times a timeline (lp-svg --timeline) in headless Chromium: from navigation
// until it is drawn, with the script's own marks, then a zoom (+ key) and a
// pan (arrow) until the next frame.
import { open } from '../tests/browser/lib.mjs';

const [file] = process.argv.slice(2);
const { browser, page, loadMs } = await open(file, '', () => window.lpTimeline && window.lpTimeline.ready());
const marks = await page.evaluate(() => {
	const n = performance.getEntriesByType('navigation')[0];
	const m = Object.fromEntries(performance.getEntriesByType('mark').map((e) => [e.name, Math.round(e.startTime)]));
	return `parsed_svg=${Math.round(n.domContentLoadedEventEnd)} inflated=${m['lp-inflated']} decoded=${m['lp-decoded']} ` +
		`built=${m['lp-built']} drawn=${m['lp-drawn']}`;
});
const frame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
let t0 = Date.now();
await page.keyboard.press('+');
await frame();
const zoomMs = Date.now() - t0;
t0 = Date.now();
await page.keyboard.press('ArrowRight');
await frame();
const panMs = Date.now() - t0;
console.log(`${marks} load_ms=${loadMs} zoom_ms=${zoomMs} pan_ms=${panMs}`);
await browser.close();
