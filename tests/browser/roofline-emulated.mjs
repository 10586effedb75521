// SPDX-License-Identifier: GPL-2.0-or-later
// lp-svg --roofline of emulated counts in Chromium: the picture says where its
// FLOPs and bytes came from, the point of the kernel (argv[3]) is drawn, and
// hovering it says it was counted by emulation.
import { open, shot, check, scenario } from './lib.mjs';

const [file, kernel] = process.argv.slice(2);

await scenario(async () => {
	const { browser, page, errors } = await open(file, '', () => window.lpRoofline && window.lpRoofline.ready);
	const details = await page.textContent('#details');
	check(details.startsWith('FLOPs and bytes counted exactly by emulation (QEMU)'), 'the picture says so: ' + details);
	const names = await page.$$eval('g.point text', (ts) => ts.map((t) => t.textContent));
	check(names.includes(kernel), kernel + ' drawn among ' + names);
	await shot(page, 'roofline-emulated');
	await page.hover(`g.point:has(text:text-is("${kernel}")) circle`);
	const d1 = await page.textContent('#details'), d2 = await page.textContent('#details2');
	check(d1.startsWith(kernel + ': ') && d2.includes('counts=emulated') && d2.includes('bytes=exact'),
		'details of the point: ' + d1 + ' / ' + d2);
	await shot(page, 'roofline-emulated-hover');
	check(errors.length === 0, 'no script errors: ' + errors.join('; '));
	await browser.close();
});
