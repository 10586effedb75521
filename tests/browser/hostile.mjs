// SPDX-License-Identifier: GPL-2.0-or-later
// Hostile names stay text: no script runs, nothing breaks out of the markup.
import { open, frames, shot, check, scenario } from './lib.mjs';

const [file] = process.argv.slice(2);
await scenario(async () => {
	const { browser, page, errors } = await open(file);
	const fs = await frames(page);
	check(await page.evaluate(() => window.pwned === undefined), 'no injected script ran');
	const texts = fs.map((f) => f.text).join('\n');
	check(texts.includes('<script>window.pwned=1</script>'), 'the script name shows as text');
	check(texts.includes(']]>'), 'a CDATA end shows as text');
	check(texts.includes('"quoted\' & <b>'), 'quotes, & and tags show as text');
	check(texts.includes('bad\ufffdbyte'), 'invalid UTF-8 shows as U+FFFD');
	check(await page.$$eval('b, script', (e) => e.length) === 1, 'no element came from a name');
	await shot(page, 'hostile');
	check(errors.length === 0, 'no errors: ' + errors);
	await browser.close();
});
