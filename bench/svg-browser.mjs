// SPDX-License-Identifier: GPL-2.0-or-later
// Times an SVG in headless Chromium: until the picture is drawn (the script has
// redrawn it from the embedded data), and a zoom click until the next frame.
import { open, frames } from '../tests/browser/lib.mjs';

const [file] = process.argv.slice(2);
const { browser, page, loadMs } = await open(file);
const fs = await frames(page);
const marks = await page.evaluate(() => {
	const n = performance.getEntriesByType('navigation')[0];
	const m = Object.fromEntries(performance.getEntriesByType('mark').map((e) => [e.name, Math.round(e.startTime)]));
	return `parsed_svg=${Math.round(n.domContentLoadedEventEnd)} inflated=${m['lp-inflated']} decoded=${m['lp-parsed']} drawn=${m['lp-drawn']}`;
});
const target = fs.filter((f) => f.cls === 'f' && f.w > 30 && f.w < 800).sort((a, b) => b.y - a.y)[0] || fs[1];
const t0 = Date.now();
await page.click(`#frames > g[data-i="${target.i}"] rect`, { force: true });
await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const zoomMs = Date.now() - t0;
const after = (await frames(page)).length;
console.log(`${marks} drawn_ms=${loadMs} frames=${fs.length} zoom_ms=${zoomMs} frames_after_zoom=${after}`);
await browser.close();
