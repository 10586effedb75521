// The flame chart: one band per thread, samples in time order (x grows with time).
import { open, frames, shot, check, scenario } from './lib.mjs';

const [file] = process.argv.slice(2);
await scenario(async () => {
	const { browser, page, errors } = await open(file);
	const fs = await frames(page);
	const order = fs.filter((f) => /^(first|second|third|fourth)$/.test(f.text)).sort((a, b) => a.x - b.x).map((f) => f.text);
	check(order.join(',') === 'first,second,third,fourth', 'frames in time order: ' + order);
	const bands = fs.filter((f) => /^app/.test(f.text)).sort((a, b) => a.x - b.x).map((f) => f.text);
	check(bands.join(',') === 'app-7/7,app-7/8', 'one band per thread, in order of appearance: ' + bands);
	await shot(page, 'flamechart');
	check(errors.length === 0, 'no errors: ' + errors);
	await browser.close();
});
