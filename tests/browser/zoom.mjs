// SPDX-License-Identifier: GPL-2.0-or-later
// A click zooms (widths scale as expected), Reset Zoom restores, the URL keeps the zoom.
import { open, frames, byText, shot, check, near, scenario } from './lib.mjs';

const [file] = process.argv.slice(2);
await scenario(async () => {
	let { browser, page, errors } = await open(file);
	let fs = await frames(page);
	const full = 1180;
	const b = byText(fs, 'b')[0];
	near(b.w, full * 0.5, 'b is half the width');
	near(byText(fs, 'd')[0].w, full * 0.2, 'd is a fifth');
	await page.click(`#frames > g[data-i="${b.i}"] rect`);
	fs = await frames(page);
	near(byText(fs, 'b')[0].w, full, 'zoomed b fills the width');
	near(byText(fs, 'c')[0].w, full * 30 / 50, 'its child c scales to 3/5');
	near(byText(fs, 'd')[0].w, full * 20 / 50, 'and d to 2/5');
	check(byText(fs, 'x').length === 0 && byText(fs, 'e').length === 0, 'frames outside b are gone');
	check(fs.filter((f) => f.cls === 'parent').map((f) => f.text).join(',') === 'all,a', 'ancestors stay as bars');
	check(await page.$eval('#unzoom', (e) => e.getAttribute('class')) === '', 'Reset Zoom shows');
	await shot(page, 'zoom-b');
	const url = page.url();
	check(/[?&]x=\d+/.test(url), 'zoom kept in the URL: ' + url);
	await page.click('#unzoom');
	fs = await frames(page);
	near(byText(fs, 'b')[0].w, full * 0.5, 'reset restores b');
	near(byText(fs, 'e')[0].w, full * 0.4, 'and e');
	await browser.close();
	({ browser, page, errors } = await open(file, url.slice(url.indexOf('?'))));
	fs = await frames(page);
	near(byText(fs, 'b')[0].w, full, 'opening the URL restores the zoom');
	check(errors.length === 0, 'no errors: ' + errors);
	await browser.close();
});
