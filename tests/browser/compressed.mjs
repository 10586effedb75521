// SPDX-License-Identifier: GPL-2.0-or-later
// Frames too narrow to draw become one (compressed) block; a click draws them all.
import { open, frames, byText, shot, check, near, scenario } from './lib.mjs';

const [file] = process.argv.slice(2);
await scenario(async () => {
	const { browser, page, errors } = await open(file);
	let fs = await frames(page);
	const blocks = fs.filter((f) => f.cls === 'compressed');
	check(blocks.length === 1, 'one compressed block: ' + blocks.length);
	near(blocks[0].w, 1180 * 500 / 1500, 'it is as wide as the 500 narrow frames together', 0.5);
	check(fs.filter((f) => /^n\d+$/.test(f.text)).length === 0, 'the narrow frames are not drawn');
	await shot(page, 'compressed-before');
	await page.click('#frames > g.compressed rect');
	fs = await frames(page);
	const drawn = fs.filter((f) => f.cls === 'f');
	check(drawn.length === 500, 'all 500 hidden frames drawn: ' + drawn.length);
	await page.hover(`#frames > g[data-i="${drawn[0].i}"] rect`);
	const details = await page.$eval('#details', (e) => e.textContent);
	check(/^Function: n\d+ \(1 samples, 0\.07%/.test(details), 'each is a frame of its own: ' + details);
	check(byText(fs, 'big').length === 0, 'the wide sibling is outside the expanded range');
	await shot(page, 'compressed-after');
	check(errors.length === 0, 'no errors: ' + errors);
	await browser.close();
});
