// SPDX-License-Identifier: GPL-2.0-or-later
// The data embedded in a flame graph decodes to the stacks it was made of.
import { readFileSync } from 'node:fs';
import { open, check, scenario } from './lib.mjs';

const [file, expected] = process.argv.slice(2);
await scenario(async () => {
	const { browser, page, errors } = await open(file);
	const got = await page.evaluate(() => window.lpFlame.folded());
	const want = readFileSync(expected, 'utf8').split('\n').filter((l) => l).sort();
	check(got.length === want.length, `${want.length} stacks, got ${got.length}`);
	const bad = want.findIndex((l, i) => got[i] !== l);
	check(bad < 0, `stack ${bad}: want "${want[bad]}", got "${got[bad]}"`);
	check(errors.length === 0, 'no errors: ' + errors);
	await browser.close();
});
