// SPDX-License-Identifier: GPL-2.0-or-later
// On/off-CPU blending and differential colours, and the tooltip naming both.
import { open, frames, byText, shot, check, scenario } from './lib.mjs';

const [file, kind] = process.argv.slice(2);
const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
await scenario(async () => {
	const { browser, page, errors } = await open(file);
	const fs = await frames(page);
	if (kind === 'onoff') {
		check(byText(fs, 'sleepy')[0].fill === '#5a6ee6', 'an off-CPU-only frame is blue: ' + byText(fs, 'sleepy')[0].fill);
		const busy = rgb(byText(fs, 'busy')[0].fill);
		check(busy[0] > 200 && busy[2] < 100, 'an on-CPU-only frame is warm: ' + busy);
		const main = rgb(byText(fs, 'main')[0].fill);
		check(main[2] > busy[2] && main[2] < 230, 'a mixed frame is in between: ' + main);
		await page.hover(`#frames > g[data-i="${byText(fs, 'main')[0].i}"] rect`);
		const details = await page.$eval('#details', (e) => e.textContent);
		check(/on-CPU 30\.00 ms, off-CPU 10\.00 ms/.test(details), 'tooltip has both times: ' + details);
		check(/main \(40\.00 ms, 100\.00%/.test(details), 'value as time: ' + details);
	} else {
		const grew = rgb(byText(fs, 'grew')[0].fill), shrank = rgb(byText(fs, 'shrank')[0].fill);
		check(grew[0] === 255 && grew[1] < 255, 'growth is red: ' + grew);
		check(shrank[2] === 255 && shrank[0] < 255, 'shrinkage is blue: ' + shrank);
		check(byText(fs, 'same')[0].fill === '#ffffff', 'no change is white');
	}
	await shot(page, 'colors-' + kind);
	check(errors.length === 0, 'no errors: ' + errors);
	await browser.close();
});
