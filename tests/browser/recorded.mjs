// SPDX-License-Identifier: GPL-2.0-or-later
// A real recording on and off the CPU (tests/workloads/blocking) in Chromium:
// blocking frames are off-CPU blue, spinning warm, and the tooltip of a frame
// with both gives both times.
import { open, frames, byText, shot, check, scenario } from './lib.mjs';

const [file] = process.argv.slice(2);
const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
await scenario(async () => {
	const { browser, page, errors } = await open(file);
	check(errors.length === 0, 'no errors: ' + errors);
	const fs = await frames(page);
	for (const name of ['do_read', 'wait_lock', 'nap', 'reap']) {
		const f = byText(fs, name)[0];
		check(f, name + ' is drawn, among ' + fs.length + ' frames: ' + fs.map((g) => g.text).join(' '));
		const [r, , b] = rgb(f.fill);
		// a sample or two on the CPU (waking up) tints it: mostly blue
		check(b > 200 && r < 120, name + ' (off the CPU) is blue: ' + f.fill);
	}
	const spin = rgb(fs.find((f) => f.text.startsWith('spin')).fill);
	// (waiting to run under load, state R, tints it a little)
	check(spin[0] > 150 && spin[2] < 100 && spin[0] > 2 * spin[2], 'spin (on the CPU) is warm: ' + spin);
	const main = byText(fs, 'main')[0];
	await page.hover(`#frames > g[data-i="${main.i}"] rect`);
	const details = await page.$eval('#details', (e) => e.textContent);
	check(/on-CPU [0-9.]+ ms, off-CPU [0-9.]+ (ms|s)/.test(details), 'tooltip has both times: ' + details);
	await shot(page, 'recorded-onoff');
	check(errors.length === 0, 'no errors: ' + errors);
	await browser.close();
});
