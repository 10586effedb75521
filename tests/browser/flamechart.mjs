// SPDX-License-Identifier: GPL-2.0-or-later
// The flame chart: one band per thread, samples in time order (x grows with time),
// a thread's summary in its band's tooltip.
import { open, frames, shot, check, scenario } from './lib.mjs';

const [file] = process.argv.slice(2);
await scenario(async () => {
	const { browser, page, errors } = await open(file);
	const fs = await frames(page);
	const order = fs.filter((f) => /^(first|second|third|fourth)$/.test(f.text)).sort((a, b) => a.x - b.x).map((f) => f.text);
	check(order.join(',') === 'first,second,third,fourth', 'frames in time order: ' + order);
	const bands = fs.filter((f) => /^app/.test(f.text)).sort((a, b) => a.x - b.x).map((f) => f.text);
	check(bands.join(',') === 'app-7/7,app-7/8', 'one band per thread, in order of appearance: ' + bands);
	// a thread's summary (its T record) is in its band's tooltip
	const band = fs.find((f) => f.text === 'app-7/8');
	await page.hover(`#frames > g[data-i="${band.i}"] rect`);
	const details = await page.$eval('#details', (e) => e.textContent);
	check(details.includes('exact on-CPU 0.300 s, sampled 0.002 s (samples stray -99%)'), 'the summary: ' + details);
	check(details.includes('spawned by 7/7 at pthread_create < start_workers < main'), 'where it was spawned, leaf first: ' + details);
	await shot(page, 'flamechart-summary');
	const other = fs.find((f) => f.text === 'app-7/7');
	await page.hover(`#frames > g[data-i="${other.i}"] rect`);
	const plain = await page.$eval('#details', (e) => e.textContent);
	check(!plain.includes('exact'), 'a thread without a summary has none: ' + plain);
	await shot(page, 'flamechart');
	check(errors.length === 0, 'no errors: ' + errors);
	await browser.close();
});
