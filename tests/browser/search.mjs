// SPDX-License-Identifier: GPL-2.0-or-later
// Search highlights exactly the matching frames and reports their share, nested matches once.
import { open, frames, byText, shot, check, scenario } from './lib.mjs';

const [file] = process.argv.slice(2);
await scenario(async () => {
	const { browser, page, errors } = await open(file);
	const search = async (re) => {
		page.answer = re;
		await page.keyboard.press('Control+f');
		await page.waitForFunction(() => document.getElementById('matched').textContent.trim() !== '' ||
			document.getElementById('search').textContent === 'Search');
		return page.$eval('#matched', (e) => e.textContent);
	};
	check(errors.length === 0, 'no errors: ' + errors);
	check(await search('^c$') === 'Matched: 80.00%', 'c is 80%');
	let fs = await frames(page);
	const hot = fs.filter((f) => f.fill === 'rgb(230,0,230)');
	check(hot.length === 3 && hot.every((f) => f.text === 'c'), 'the three c frames, and only them, are highlighted: ' + JSON.stringify(hot));
	await shot(page, 'search-c');
	check(await search('b|c') === 'Matched: 100.00%', 'b and c: nested c under b counted once');
	check(await search('B') === 'Matched: 0.00%', 'case sensitive by default');
	await page.click('#ignorecase');
	check(await page.$eval('#matched', (e) => e.textContent) === 'Matched: 50.00%', 'ic makes B match b');
	check(page.url().includes('s=B') && page.url().includes('i=1'), 'search kept in the URL: ' + page.url());
	await page.keyboard.press('Escape');
	fs = await frames(page);
	check(fs.every((f) => f.fill !== 'rgb(230,0,230)'), 'Esc clears the highlight');
	check(await page.$eval('#matched', (e) => e.textContent) === ' ', 'and the share');
	await browser.close();
});
